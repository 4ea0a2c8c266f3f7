import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (`#/agents/<id>/leads`): the server serves one page at `/`, and links in e-mails
 * land on the right screen. A route is the hash split into path segments.
 */
export function currentRoute(): string[] {
  const hash = location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return hash
    .split('/')
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
}

export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    update(); // the hash may have changed between the first render and now
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** `#/agents/<id>/<tab>` with every dynamic segment encoded. */
export function href(...segments: string[]): string {
  return `#/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}

/**
 * A dependency loaded on first use instead of at start. Every static import is loaded before the
 * server answers; the LLM SDKs, cheerio and nodemailer together cost most of a second there and
 * most servers use one of them, or none, much later. In dist/ each sits in a chunk of its own that
 * is read on first use (scripts/build.mjs).
 *
 * `load()` starts the import once and shares it; a failed import is forgotten so a later call
 * tries again. `loaded` is the module once it has arrived (e.g. for `instanceof` against its
 * error classes, which can only be thrown after it was loaded).
 */
export interface Lazy<T> {
  (): Promise<T>;
  readonly loaded: T | undefined;
}

export function lazy<T>(importer: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  let value: T | undefined;
  const load = () =>
    (pending ??= importer().then(
      (m) => (value = m),
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    ));
  return Object.defineProperty(load, 'loaded', { get: () => value }) as Lazy<T>;
}

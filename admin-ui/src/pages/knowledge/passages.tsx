import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../../api.js';
import type { Passage, PassagePage, Source } from '../../types.js';
import { Loading, Notice, errorText } from '../../ui.js';

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const PASSAGES_PER_PAGE = 50;

/** Only http(s) addresses become links (a crawled page's own URL, as the server stored it). */
const httpHref = (url: string | null): string | null => (url && /^https?:\/\//i.test(url) ? url : null);

function PassageItem({ passage }: { passage: Passage }) {
  const href = httpHref(passage.page_url);
  return (
    <li class="passage" data-ordinal={passage.ordinal}>
      <div class="passage-meta">
        {passage.heading && (
          <span class="passage-heading" title="Section">
            {passage.heading}
          </span>
        )}
        {passage.page !== null && <span class="passage-page">Page {passage.page}</span>}
        {passage.title &&
          (href ? (
            <a class="passage-title" href={href} target="_blank" rel="noopener noreferrer">
              {passage.title}
            </a>
          ) : (
            <span class="passage-title">{passage.title}</span>
          ))}
        {!passage.title && href && (
          <a class="passage-title" href={href} target="_blank" rel="noopener noreferrer">
            {passage.page_url}
          </a>
        )}
        <span class="passage-tokens">{plural(passage.token_count, 'token', 'tokens')}</span>
      </div>
      {/* a text node: whatever a document or web page held is shown, never interpreted */}
      <p class="passage-text">{passage.content}</p>
    </li>
  );
}

/**
 * What was extracted from a source, a page at a time. Read again from the start when the source's
 * status changes (a crawl or re-crawl finished), so the list is the one that answers.
 */
export function Passages({ source, id }: { source: Source; id: string }) {
  const [items, setItems] = useState<Passage[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);

  const load = async (offset: number) => {
    const mine = ++generation.current;
    setLoading(true);
    setError(null);
    try {
      const page = await get<PassagePage>(
        `/api/sources/${encodeURIComponent(source.id)}/passages?offset=${offset}&limit=${PASSAGES_PER_PAGE}`,
      );
      if (mine !== generation.current) return;
      setTotal(page.total);
      // a page read while a crawl adds passages may repeat some of the previous one
      setItems((list) => {
        const base = offset === 0 ? [] : list;
        const seen = new Set(base.map((p) => p.id));
        return [...base, ...page.passages.filter((p) => !seen.has(p.id))];
      });
    } catch (err) {
      if (mine !== generation.current) return;
      setError(errorText(err));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  };

  useEffect(() => {
    void load(0);
    return () => {
      generation.current++; // closed, or the status changed: what is still on its way is dropped
    };
  }, [source.id, source.status]);

  const more = total !== null && items.length < total;
  return (
    <div class="passages" id={id} role="region" aria-label={`Passages of ${source.name}`}>
      {source.status === 'processing' && (
        <p class="small muted">Still processing: this list is read again when it completes.</p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {total === null && loading && <Loading label="Loading passages…" />}
      {total !== null && (
        <p class="small muted passages-count">
          {total === 0
            ? 'No passages.'
            : items.length < total
              ? `Showing ${items.length} of ${plural(total, 'passage', 'passages')}`
              : plural(total, 'passage', 'passages')}
        </p>
      )}
      {items.length > 0 && (
        <ol class="passage-list">
          {items.map((p) => (
            <PassageItem key={p.id} passage={p} />
          ))}
        </ol>
      )}
      {(more || (error && total !== null)) && (
        <div class="actions">
          <button type="button" class="btn btn-small" disabled={loading} onClick={() => void load(items.length)}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </div>
  );
}

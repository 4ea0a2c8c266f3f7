// The chat bench's timed requests, made with node:http on one keep-alive agent rather than with
// fetch. The bench process is the stopwatch, and its own pauses land in whatever request is in
// flight. With fetch, traced with --trace-gc during the measured rounds, each young collection of
// the bench process kept 10-25 MB alive and paused it for 20-85 ms, every 1-2 s (whatever keeps
// fetch's responses alive past a young collection; a full one freed them). With node:http its
// young collections came every ~4 s and paused it for under 5 ms.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true });

/**
 * POSTs `payload` (JSON) to `url` and reads the whole answer. Resolves with the ms from `started`
 * until `marker` first appears in the answer (or until its end, with no marker); rejects on a
 * non-2xx status, a missing marker or a network error.
 */
export function timedPost(
  url: URL,
  payload: string,
  headers: Record<string, string>,
  marker?: string,
  started = performance.now(),
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        let markedAt: number | null = null;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (marker === undefined || markedAt !== null) return;
          text += chunk;
          if (text.includes(marker)) markedAt = performance.now();
        });
        res.on('error', reject);
        res.on('end', () => {
          const endedAt = performance.now();
          if (status < 200 || status >= 300) reject(new Error(`${url.pathname}: status ${status}`));
          else if (marker !== undefined && markedAt === null)
            reject(new Error(`${url.pathname}: no ${marker} in the answer`));
          else resolve((markedAt ?? endedAt) - started);
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

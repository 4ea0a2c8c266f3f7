import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServerBundle } from '../helpers/server-bundle.js';
import { bootServer, serverEnv, stopServer } from '../helpers/server-process.js';
import { serveOnTerminal } from '../helpers/terminal.js';

/**
 * Issue 31 point 3: the server's log was raw JSON on a terminal. On a terminal it is now one
 * readable line per record (time, level, message); piped or redirected (a service, a container,
 * a log collector) it stays one JSON object per line. The built server (`node dist/main.js`).
 */

const bundle = useServerBundle();

function env(name: string): Record<string, string> {
  const dataDir = path.join(bundle.dir, name);
  mkdirSync(dataDir);
  return serverEnv(dataDir);
}

describe('the server log', () => {
  it('on a terminal: readable lines, no JSON', { timeout: 60_000 }, async () => {
    // the provider warning is logged once the server listens: Ctrl+C only after it
    const run = await serveOnTerminal(bundle.serve(), env('tty'), 'no LLM provider configured');
    expect(run.code, run.output).toBe(0);
    expect(
      run.lines.filter((l) => l.trimStart().startsWith('{')),
      run.output,
    ).toEqual([]);
    const listening = run.lines.find((l) => l.includes('listening on'));
    expect(listening, run.output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(run.output).toMatch(/\] WARN: no LLM provider configured/);
    expect(run.output).toMatch(/\] INFO: shutdown complete: database closed/);
    // one line per record: the extra fields stay on the message's line
    expect(listening).toMatch(/"dataDir":/);
  });

  it('piped: one JSON object per line', { timeout: 60_000 }, async () => {
    const { server } = await bootServer(bundle.serve(), { env: env('pipe') });
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    expect(server.stdoutLines.length).toBeGreaterThan(3);
    for (const line of server.stdoutLines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(server.records.find((r) => r.msg === 'shutdown complete: database closed')).toMatchObject({ level: 30 });
  });
});

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BOOT_TIMEOUT_MS, withTimeout } from './server-process.js';

/**
 * A server run on a pseudo-terminal, as someone typing `npm start` in a shell sees it: util-linux
 * `script` gives it a terminal for stdout and stderr. Once its output shows `until` (by default
 * `listening on`; a test asserting a later start-up line waits for that one), Ctrl+C
 * is typed (the terminal sends SIGINT, as it does for a person) and the whole output is returned
 * once the server has exited, escape sequences (colours) taken out.
 */
/** util-linux `script`, found without the child's PATH (the executable's tests give it none) */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((f) => existsSync(f)) ?? 'script';

export async function serveOnTerminal(
  cmd: { command: string; args: string[] },
  env: Record<string, string>,
  until = 'listening on',
): Promise<{ code: number | null; output: string; lines: string[] }> {
  const line = [cmd.command, ...cmd.args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  // exec: the shell script starts the command with gives way to it, so the server alone gets the
  // SIGINT and its exit code is script's (a shell left waiting would exit 130 on the SIGINT too)
  const child = spawn(SCRIPT, ['-qefc', `exec ${line}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  let interrupted = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      raw += chunk;
      if (!interrupted && raw.includes(until)) {
        interrupted = true;
        resolve();
      }
    });
    child.stderr.on('data', (chunk: string) => {
      raw += chunk;
    });
    void exited.then(() => reject(new Error(`exited before listening:\n${raw}`)));
  });
  try {
    await withTimeout(listening, BOOT_TIMEOUT_MS, `the log line "${until}"`);
    child.stdin.write('\x03');
    const code = await withTimeout(exited, BOOT_TIMEOUT_MS, 'the exit after Ctrl+C');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences
    const output = raw.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '');
    return { code, output, lines: output.split('\n').filter((l) => l.trim() !== '' && l.trim() !== '^C') };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child.stdin.end();
  }
}

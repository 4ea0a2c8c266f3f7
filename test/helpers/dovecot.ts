import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort } from './smtp.js';

export { type RawMailFields, rawMail } from './raw-mail.js';

/**
 * A real IMAP server for the e-mail channel's tests: Debian's Dovecot 2.3 (package dovecot-imapd;
 * .ci/run installs it) started with `dovecot -F` on a config of its own in a temp dir: IMAP only on
 * 127.0.0.1 and a free port, no TLS, plaintext logins, users from a passwd-file with plain passwords,
 * one maildir a user under the temp dir, its log on stderr (kept, and in the error when it fails to
 * start). Nothing of the system's Dovecot config or state is used, so several run side by side.
 *
 * Dovecot refuses to run IMAP sessions or login processes as root: run by root, every Dovecot
 * process runs as `nobody` (the temp dir is handed to it); run by anyone else, as that user.
 */
export interface TestImap {
  host: '127.0.0.1';
  port: number;
  /** user name -> password */
  users: Record<string, string>;
  /** the temp dir: config, passwd-file, the maildirs under mail/<user>/Maildir */
  dir: string;
  /** the master process's id (its processes are in a process group of that id) */
  pid: number;
  /** `imap://user:password@127.0.0.1:port/`, both percent-encoded */
  url(user: string): string;
  /** a logged-in imapflow client as `user` (auto-IDLE off); the caller logs it out */
  connect(user: string, options?: { password?: string }): Promise<ImapFlow>;
  /** delivers a message: IMAP APPEND to the user's INBOX */
  append(user: string, raw: string | Buffer, flags?: string[]): Promise<void>;
  /** the user's INBOX, oldest first */
  messages(user: string): Promise<ImapMessage[]>;
  /** what Dovecot logged so far */
  log(): string;
  /** SIGTERM to Dovecot's processes, await their exit (SIGKILL after 10 s), remove the temp dir */
  stop(): Promise<void>;
}

export interface ImapMessage {
  uid: number;
  /** sorted: `\Seen`, `\Answered`, ...; not `\Recent` (it depends on which session saw the message first) */
  flags: string[];
  subject: string;
  messageId: string | undefined;
  inReplyTo: string | undefined;
  from: string | undefined;
}

/** Dovecot 2.3's post-login CAPABILITY less IDLE (`imap_capability` replaces the list; the login greeting follows it too) */
const CAPABILITY_WITHOUT_IDLE =
  'IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE SORT SORT=DISPLAY THREAD=REFERENCES THREAD=REFS ' +
  'THREAD=ORDEREDSUBJECT MULTIAPPEND URL-PARTIAL CATENATE UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED ' +
  'I18NLEVEL=1 CONDSTORE QRESYNC ESEARCH ESORT SEARCHRES WITHIN CONTEXT=SEARCH LIST-STATUS BINARY MOVE ' +
  'SNIPPET=FUZZY PREVIEW=FUZZY PREVIEW STATUS=SIZE SAVEDATE LITERAL+ NOTIFY';

const DOVECOT = '/usr/sbin/dovecot';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_LIMIT = 256 * 1024;

/** the process groups still running, killed if the test process exits without stop() */
const running = new Set<number>();
process.once('exit', () => {
  for (const pgid of running) killGroup(pgid, 'SIGKILL');
});

/**
 * Starts Dovecot with `users` (default alice and bob), each with the password `<user>-p@ss w/rd%`
 * (characters a URL must percent-encode). `idle: false` leaves IDLE out of the capabilities, for a
 * client's polling fallback. A port taken between choosing and binding it is retried with another.
 */
export async function startImap(options: { users?: string[]; idle?: boolean } = {}): Promise<TestImap> {
  if (!existsSync(DOVECOT)) throw new Error(`${DOVECOT} is missing: apt-get install dovecot-imapd`);
  const names = options.users ?? ['alice', 'bob'];
  for (const name of names) if (!/^[^\s:%]+$/.test(name)) throw new Error(`unusable IMAP user name: ${name}`);
  const users = Object.fromEntries(names.map((name) => [name, `${name}-p@ss w/rd%`]));
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(users, options.idle ?? true);
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

async function startOnce(users: Record<string, string>, idle: boolean): Promise<TestImap> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'dovecot-'));
  const owner = processOwner();
  writeFileSync(
    path.join(dir, 'passwd'),
    Object.entries(users)
      .map(([name, password]) => `${name}:{PLAIN}${password}\n`)
      .join(''),
  );
  writeFileSync(path.join(dir, 'dovecot.conf'), config(dir, port, owner, idle));
  mkdirSync(path.join(dir, 'mail'));
  if (owner.uid !== process.getuid?.()) {
    for (const p of ['', 'passwd', 'dovecot.conf', 'mail']) chownSync(path.join(dir, p), owner.uid, owner.gid);
  }

  let log = '';
  const child = spawn(DOVECOT, ['-F', '-c', path.join(dir, 'dovecot.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...(owner.uid !== process.getuid?.() ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-LOG_LIMIT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`exited with ${signal ?? `code ${code}`}`));
    child.once('error', (error) => resolve(`failed to start: ${error.message}`));
  });
  if (child.pid !== undefined) running.add(child.pid);

  const stop = async () => {
    if (child.pid !== undefined) await terminate(child, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      greeting(port, Date.now() + START_TIMEOUT_MS),
      exited.then((how) => {
        throw new Error(`dovecot ${how}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw new Error(`Dovecot did not start on port ${port}: ${(error as Error).message}\n${log}`);
  }

  const connect: TestImap['connect'] = async (user, opts = {}) => {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user, pass: opts.password ?? users[user] ?? '' },
      logger: false,
      disableAutoIdle: true,
    });
    await client.connect();
    return client;
  };
  const withClient = async <T>(user: string, run: (client: ImapFlow) => Promise<T>): Promise<T> => {
    const client = await connect(user);
    try {
      return await run(client);
    } finally {
      await client.logout().catch(() => client.close());
    }
  };

  return {
    host: '127.0.0.1',
    port,
    users,
    pid: child.pid!,
    dir,
    url(user) {
      const password = users[user];
      if (password === undefined) throw new Error(`no IMAP user ${user}`);
      return `imap://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/`;
    },
    connect,
    async append(user, raw, flags = []) {
      await withClient(user, async (client) => {
        const done = await client.append('INBOX', raw, flags);
        if (!done) throw new Error(`APPEND to ${user}'s INBOX failed`);
      });
    },
    messages(user) {
      return withClient(user, async (client) => {
        const mailbox = await client.mailboxOpen('INBOX', { readOnly: true });
        if (mailbox.exists === 0) return [];
        const fetched = await client.fetchAll('1:*', { uid: true, flags: true, envelope: true });
        return fetched.map((m) => ({
          uid: m.uid,
          flags: [...(m.flags ?? [])].filter((flag) => flag !== '\\Recent').sort(),
          subject: m.envelope?.subject ?? '',
          messageId: m.envelope?.messageId,
          inReplyTo: m.envelope?.inReplyTo,
          from: m.envelope?.from?.[0]?.address,
        }));
      });
    },
    log: () => log,
    stop,
  };
}

/** who Dovecot runs as: this process's user, or nobody when that is root */
function processOwner(): { uid: number; gid: number; user: string; group: string } {
  const me = userInfo();
  const user = me.uid === 0 ? 'nobody' : me.username;
  const id = (...args: string[]) => execFileSync('id', [...args, user], { encoding: 'utf8' }).trim();
  return me.uid === 0
    ? { uid: Number(id('-u')), gid: Number(id('-g')), user, group: id('-gn') }
    : { uid: me.uid, gid: me.gid, user, group: id('-gn') };
}

function config(
  dir: string,
  port: number,
  owner: { uid: number; gid: number; user: string; group: string },
  idle: boolean,
) {
  return `# written by the tests' IMAP harness (Dovecot 2.3)
instance_name = test-imap-${port}
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = /dev/stderr
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# a wrong password is answered at once, and does not slow down the logins after it: no failure
# delay, and no penalty (mode 0 is the documented switch: the auth process cannot reach anvil's
# penalty socket, so it keeps no count of failures by IP)
auth_failure_delay = 0
default_login_user = ${owner.user}
default_internal_user = ${owner.user}
default_internal_group = ${owner.group}
first_valid_uid = ${owner.uid}
last_valid_uid = ${owner.uid}
mail_location = maildir:~/Maildir
mail_fsync = never
# IDLE sees new mail by inotify at once; this re-check is for when inotify is out of instances
mailbox_idle_check_interval = 1 secs
${idle ? '' : `imap_capability = ${CAPABILITY_WITHOUT_IDLE}\n`}passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${owner.uid} gid=${owner.gid} home=${dir}/mail/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`;
}

/** connects until the server answers its `* OK` greeting (retrying a refused connection) */
async function greeting(port: number, deadline: number): Promise<void> {
  for (;;) {
    try {
      const line = await firstLine(port, deadline - Date.now());
      if (!line.startsWith('* OK')) throw new Error(`unexpected greeting: ${line}`);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

function firstLine(port: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let data = '';
    socket.setTimeout(Math.max(timeoutMs, 1), () => {
      socket.destroy();
      reject(new Error('no greeting in time'));
    });
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const end = data.indexOf('\r\n');
      if (end === -1) return;
      socket.end('a LOGOUT\r\n');
      socket.resume();
      resolve(data.slice(0, end));
    });
    socket.on('close', () => reject(new Error(`connection closed before a greeting: ${data}`)));
  });
}

/**
 * SIGTERM to the whole process group at once: signalled alone, the master waits about a second for
 * its processes and leaves an IMAP session's process (and the log process serving it) running for
 * another second or two; each of them stops at once on its own SIGTERM (2.3 s -> 50 ms a stop).
 */
async function terminate(child: ChildProcess, exited: Promise<string>): Promise<void> {
  const pgid = child.pid!;
  if (child.exitCode === null && child.signalCode === null) {
    killGroup(pgid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (late) killGroup(pgid, 'SIGKILL');
    await exited;
  }
  // the other processes are not our children, so there is no exit event to wait on: polled for,
  // and killed if they take more than 3 s
  if (!(await groupGone(pgid, 3_000))) {
    killGroup(pgid, 'SIGKILL');
    if (!(await groupGone(pgid, 3_000))) throw new Error(`Dovecot processes of group ${pgid} outlived SIGKILL`);
  }
  running.delete(pgid);
}

/** polls until no process is left in the group (a zombie counts until it is reaped) */
async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function killGroup(pgid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // no process left in the group
  }
}

import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { runCli } from './cli.js';
import type { Config } from './config/index.js';
import { lockDatabase, DatabaseInUseError } from './platform/db/data-lock.js';
import { DatabaseRefusal, openDatabase } from './platform/db/index.js';
import { PROVIDER_NAMES, settingVariable } from './providers/llm/catalog.js';

/** How long shutdown may take before the process exits anyway (the database stays consistent: WAL). */
const SHUTDOWN_GRACE_MS = 10_000;

/** `serve`: open the database, build the app, listen, shut down gracefully. */
async function serve(config: Config): Promise<void> {
  try {
    await start(config);
  } catch (err) {
    // Known start-up failures (port taken, no permission, unwritable data dir) are one line; anything else keeps its stack.
    const e = err as NodeJS.ErrnoException;
    const known =
      e.code === 'EADDRINUSE' ||
      e.code === 'EACCES' ||
      e.code === 'EADDRNOTAVAIL' ||
      e.code === 'SQLITE_CANTOPEN' ||
      err instanceof DatabaseRefusal ||
      err instanceof DatabaseInUseError;
    process.stderr.write(`fatal: ${known ? e.message : (e.stack ?? String(err))}\n`);
    process.exit(1);
  }
}

async function start(config: Config): Promise<void> {
  // held until the process ends: a second server on this DATA_DIR refuses to start
  const lock = lockDatabase(config.databaseFile);
  let database;
  try {
    database = openDatabase(config.databaseFile);
  } catch (err) {
    lock.release();
    throw err;
  }
  const app = await buildApp({ config, database });

  // SIGTERM/SIGINT: stop accepting and let in-flight requests finish; then (app.ts onClose) running
  // ingestion jobs stop at a safe point and stay queued for the next start, the lead-alert outbox
  // stops (its rows are the state: unsent mail stays queued), the parser threads end and a backup
  // in progress completes. Then closing the database folds the WAL back into the file.
  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    database.close();
    lock.release();
    app.log.info('shutdown complete: database closed');
  });

  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info({ address, dataDir: config.dataDir, publicUrl: config.publicUrl }, `listening on ${address}`);
  // the environment's providers and those an admin stored (Admin > Server settings)
  const { configured, missing } = app.providers;
  if (configured.length === 0) {
    const variables = PROVIDER_NAMES.map(settingVariable);
    app.log.warn(
      `no LLM provider configured: agents answer from their knowledge base only (set ${variables.slice(0, -1).join(', ')} or ${variables.at(-1)}, or save a key in the admin UI under Admin > Server settings)`,
    );
  } else if (missing.length > 0) {
    app.log.info(
      `LLM providers configured: ${configured.join(', ')}; agents on ${missing.join(', ')} answer from their knowledge base only`,
    );
  }
  app.log.info(
    config.embeddings === 'none'
      ? 'retrieval: keyword search only (EMBEDDINGS=none)'
      : `retrieval: keyword + ${config.embeddings} embeddings`,
  );
  if (app.backups) {
    app.log.info(
      { dir: config.backup.dir, everyHours: config.backup.intervalMs / 3_600_000, keep: config.backup.keep },
      'scheduled backups on',
    );
  }
}

// Entry of `npm start` (dist/main.js), of the single executable, and of `node --import tsx src/main.ts`.
void runCli(process.argv, { serve }, process.env);

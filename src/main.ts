import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config/index.js';
import { openDatabase } from './platform/db/index.js';
import { configuredProviders } from './providers/llm/registry.js';

/** Entry: read config, open the database, build the app, listen, shut down gracefully. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  const database = openDatabase(config.databaseFile);
  const app = await buildApp({ config, database });

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish (up to the delay), close the db.
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    database.close();
  });

  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info({ address, dataDir: config.dataDir, publicUrl: config.publicUrl }, `listening on ${address}`);
  const { configured, missing } = configuredProviders(config);
  if (configured.length === 0) {
    app.log.warn('no LLM provider configured: agents answer from their knowledge base only (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST)');
  } else if (missing.length > 0) {
    app.log.info(`LLM providers configured: ${configured.join(', ')}; agents on ${missing.join(', ')} answer from their knowledge base only`);
  }
  app.log.info(config.embeddings === 'none' ? 'retrieval: keyword search only (EMBEDDINGS=none)' : `retrieval: keyword + ${config.embeddings} embeddings`);
}

main().catch((err: NodeJS.ErrnoException) => {
  // Known start-up failures (port taken, no permission, unwritable data dir) are one line; anything else keeps its stack.
  const known = err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL' || err.code === 'SQLITE_CANTOPEN';
  process.stderr.write(`fatal: ${known ? err.message : (err.stack ?? String(err))}\n`);
  process.exit(1);
});

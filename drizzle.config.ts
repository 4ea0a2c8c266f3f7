import { defineConfig } from 'drizzle-kit';

// Ordinary tables are generated from src/modules/*/tables.ts. vec0 and FTS5 tables go into
// `drizzle-kit generate --custom` migrations: drizzle-kit cannot load sqlite-vec (STACK-NOTES).
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/modules/*/tables.ts', './src/platform/*/tables.ts'],
  out: './migrations',
});

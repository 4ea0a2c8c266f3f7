/**
 * The import rules of ARCHITECTURE.md, checked by `npm run check:deps` (part of `npm test`).
 * Type-only imports count like any other: a circle of types is harmless at run time, but it is
 * still two files that cannot be read (or moved) one without the other.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles: a file is loaded after everything it imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-not-to-modules',
      severity: 'error',
      comment: 'platform/ is shared machinery and never imports from modules/.',
      from: { path: '^src/platform/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'providers-not-to-modules',
      severity: 'error',
      comment: 'providers/ talk to outside systems and never import from modules/.',
      from: { path: '^src/providers/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'modules-through-their-door',
      severity: 'error',
      comment: 'A module uses another module only through its index.ts.',
      from: { path: '^src/modules/([^/]+)/', pathNot: '/(tables|repo|[a-z-]+-repo)\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'schema-through-tables',
      severity: 'error',
      comment:
        "The drizzle schema and the repositories may name other modules' tables (foreign keys, " +
        'joins) in their tables.ts, which drizzle-kit reads on its own; anything else through index.ts.',
      from: { path: '^src/modules/([^/]+)/.*(tables|repo)\\.ts$' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/(index|tables)\\.ts$'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // count `import type` too (see above)
    tsPreCompilationDeps: true,
  },
};

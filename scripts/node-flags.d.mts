/** The V8 flags of package.json's start script, between `node` and `dist/main.js` (scripts/node-flags.mjs). */
export function serverNodeFlags(startScript?: string): string[];
/** The environment variables package.json's start script sets before `node` (scripts/node-flags.mjs). */
export function serverNodeEnv(startScript?: string): Record<string, string>;

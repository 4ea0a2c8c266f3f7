// dist/main.js, the entry of `npm start` and `node dist/main.js`: the Node.js version check, then
// the server (src/main.ts, built to dist/server.js). The server bundle loads native modules as it
// is imported, so it is imported only once the check has passed; nothing else is imported here.
import './require-node.mjs';

import('./main.ts');

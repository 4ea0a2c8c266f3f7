// The Node.js version check, run before anything else of the server is loaded: by `npm start`
// (its prestart script, before the build) and first thing in dist/main.js (src/entry.mjs).
// An older Node fails deep inside a native module (better-sqlite3 on Node 20 ends in
// "Segmentation fault"), so this file imports nothing and keeps to syntax old Node versions
// parse. Keep REQUIRED_MAJOR equal to package.json "engines" (test/ship/node-version.test.ts).
var REQUIRED_MAJOR = 24;

var found = process.versions.node;
if (Number(found.split('.')[0]) < REQUIRED_MAJOR) {
  process.stderr.write(
    'chat-agent needs Node.js ' +
      REQUIRED_MAJOR +
      ' or newer; this is Node.js ' +
      found +
      ' (' +
      process.execPath +
      '). Install Node.js ' +
      REQUIRED_MAJOR +
      ' LTS (https://nodejs.org/en/download, or `nvm install ' +
      REQUIRED_MAJOR +
      '`), or run the single executable or the Docker image, which bring their own Node.js.\n',
  );
  process.exit(1);
}

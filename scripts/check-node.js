// The project runs on Node.js 24 (pinned through the npm package `node`). A bare `node` outside
// npm may be the system's Node 20, which lacks type stripping and node:sqlite: fail loudly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `ppx: Node.js ${process.version} is too old; run through npm (npm test / npm start) to use Node 24.`,
  );
  process.exit(1);
}

#!/usr/bin/env node
// Entry point of `npx ppx` and `npm start`. Node 24 runs the TypeScript sources directly
// (type stripping), so there is no build step.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `ppx: Node.js ${process.version} is too old; use Node 24 (npm start / npx ppx use the pinned one).`,
  );
  process.exit(1);
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

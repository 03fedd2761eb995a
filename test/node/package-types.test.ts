// scripts/lib/package-types.ts answers some imports in Node's place; each kind of package must load
// under it as under Node alone: an ES package, a CommonJS one, an ES package with a CommonJS folder
// of its own (and a folder whose package.json names no type), a package.json Node cannot parse, a
// missing file.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const HOOK = path.resolve(import.meta.dirname, "../../scripts/lib/package-types.ts");
const work = mkdtempSync(path.join(tmpdir(), "package-types-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(file: string, text: string) {
  mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
  writeFileSync(path.join(work, file), text);
}

write("node_modules/esm/package.json", '{"type":"module","exports":{".":"./index.js"}}');
write(
  "node_modules/esm/index.js",
  'export { deep } from "./lib/deep.js";\nexport const kind = "esm";',
);
write("node_modules/esm/lib/deep.js", 'export const deep = typeof require === "undefined";');
write("node_modules/cjs/package.json", '{"main":"index.js"}');
write("node_modules/cjs/index.js", 'module.exports = { kind: require("./kind.js") };');
write("node_modules/cjs/kind.js", 'module.exports = "cjs";');
write("node_modules/mixed/package.json", '{"type":"module","exports":{".":"./index.js"}}');
write(
  "node_modules/mixed/index.js",
  'import cjs from "./cjs/index.js";\nimport plain from "./plain/index.js";\nexport const kinds = [cjs.kind, plain.kind];',
);
write("node_modules/mixed/cjs/package.json", '{"type":"commonjs"}');
write(
  "node_modules/mixed/cjs/index.js",
  'exports.kind = typeof module === "object" ? "cjs" : "?";',
);
write("node_modules/mixed/plain/package.json", '{"sideEffects":false}');
write(
  "node_modules/mixed/plain/index.js",
  'exports.kind = typeof module === "object" ? "cjs" : "?";',
);
write("node_modules/broken/package.json", '{"type":"module","exports":{".":"./index.js"}}');
write("node_modules/broken/index.js", 'export * from "./inner/index.js";');
write("node_modules/broken/inner/package.json", "{ not json");
write("node_modules/broken/inner/index.js", "export const kind = 1;");
write("node_modules/missing/package.json", '{"type":"module","exports":{".":"./index.js"}}');
write("node_modules/missing/index.js", 'export * from "./gone.js";');

write(
  "main.mjs",
  `import * as esm from "esm";
import cjs from "cjs";
import { kinds } from "mixed";
console.log(JSON.stringify({ esm: [esm.kind, esm.deep], cjs: cjs.kind, mixed: kinds }));`,
);
write("broken.mjs", 'await import("broken").catch((e) => console.log(e.code));');
write("missing.mjs", 'await import("missing").catch((e) => console.log(e.code));');

const run = (entry: string, hooked: boolean) => {
  const result = spawnSync(
    process.execPath,
    [...(hooked ? ["--import", HOOK] : []), path.join(work, entry)],
    { cwd: work, encoding: "utf8", timeout: 30_000 },
  );
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
};

it("loads ES, CommonJS and mixed packages as Node alone does", () => {
  const alone = run("main.mjs", false);
  expect(alone.status, alone.stderr).toBe(0);
  expect(JSON.parse(alone.stdout)).toEqual({
    esm: ["esm", true],
    cjs: "cjs",
    mixed: ["cjs", "cjs"],
  });
  expect(run("main.mjs", true)).toEqual(alone);
});

it("leaves a package.json Node cannot parse, and a missing file, to Node's own errors", () => {
  for (const entry of ["broken.mjs", "missing.mjs"]) {
    const alone = run(entry, false);
    expect(alone.stdout).toMatch(/^ERR_/);
    expect(run(entry, true).stdout).toBe(alone.stdout);
  }
});

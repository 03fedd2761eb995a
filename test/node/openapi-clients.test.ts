// The published document and the TypeScript client's types are generated files: they must be what
// the route tables give now (`npm run openapi` rewrites them), and every operation has a name.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runScript } from "./run-script";

const root = new URL("../../", import.meta.url);

describe("clients/openapi.json and clients/typescript/openapi.d.ts", () => {
  it("are what the route tables give now (npm run openapi -- --check)", () => {
    // Exits 1 with the script's message when either file is stale.
    const result = runScript("scripts/openapi.ts", ["--check"], { cwd: root });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it("names every operation once, in camelCase", () => {
    const doc = JSON.parse(readFileSync(new URL("clients/openapi.json", root), "utf8"));
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((ops) => Object.values(ops))
      .map((op) => op.operationId);
    expect(ids.length).toBeGreaterThan(30);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

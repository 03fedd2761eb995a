// Puts the API reference's renderer where wrangler serves static assets from (wrangler.toml [assets]):
// Scalar's standalone browser bundle, the version package.json pins, copied out of node_modules.
// wrangler runs this before `wrangler dev` and `wrangler deploy` ([build] command) and
// vitest.config.ts before the Workers tests, so no step of building or running downloads it.
// Plain Node (no tsx): wrangler runs it with whatever PATH it was started from.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
/** wrangler.toml's [assets] directory. */
export const ASSETS_DIR = path.join(ROOT, "assets");

export function copyReferenceAssets() {
  const entry = createRequire(path.join(ROOT, "package.json")).resolve("@scalar/api-reference");
  // The package's exports name no browser build; it sits beside the entry module in dist/.
  const bundle = path.join(path.dirname(entry), "browser", "standalone.js");
  const target = path.join(ASSETS_DIR, "api-reference");
  mkdirSync(target, { recursive: true });
  copyFileSync(bundle, path.join(target, "scalar.js"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) copyReferenceAssets();

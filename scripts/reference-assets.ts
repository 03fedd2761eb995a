// Puts the API reference's renderer where wrangler serves static assets from (wrangler.toml [assets]):
// Swagger UI's browser bundle and stylesheet, the version package.json pins, copied out of
// node_modules. wrangler runs this before `wrangler dev` and `wrangler deploy` ([build] command) and
// vitest.config.ts before the Workers tests, so no step of building or running downloads it.
// wrangler runs it as `node --import tsx`: tsx is found in this checkout's node_modules, whatever
// PATH wrangler was started with.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
/** wrangler.toml's [assets] directory. */
export const ASSETS_DIR = path.join(ROOT, "assets");
/** The files src/reference.ts serves; the package's other files (its demo page, maps) stay out. */
const REFERENCE_FILES = ["swagger-ui-bundle.js", "swagger-ui.css"];

export function copyReferenceAssets() {
  const manifest = createRequire(path.join(ROOT, "package.json")).resolve(
    "swagger-ui-dist/package.json",
  );
  const target = path.join(ASSETS_DIR, "api-reference");
  // Emptied first: wrangler uploads the whole folder, so a file an earlier version left must go.
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const file of REFERENCE_FILES)
    copyFileSync(path.join(path.dirname(manifest), file), path.join(target, file));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) copyReferenceAssets();

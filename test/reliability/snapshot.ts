// The worker the run tests, copied once at the start: `wrangler dev` reloads the worker whenever a
// watched source file changes, answering requests in flight with 503 "Your worker restarted
// mid-request". Serving a copy keeps edits made during the run from restarting it, and the server
// the crash section restarts runs the same code as the others.
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { copyReferenceAssets } from "../../scripts/reference-assets";

const ROOT = resolve(import.meta.dirname, "..", "..");
const COPIED = [
  "src",
  "drizzle",
  "wrangler.toml",
  "tsconfig.json",
  "package.json",
  "worker-configuration.d.ts",
  // The API reference's files (wrangler.toml [assets]), and the [build] command's script that makes
  // them: wrangler dev runs it in this checkout, a bundle in the copy (scripts/lib/bundle.ts).
  "assets",
  "scripts",
];

export function snapshotApp() {
  copyReferenceAssets();
  const dir = mkdtempSync(join(tmpdir(), "wallet-app-"));
  for (const name of COPIED)
    if (existsSync(join(ROOT, name)))
      cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return {
    dir,
    config: join(dir, "wrangler.toml"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

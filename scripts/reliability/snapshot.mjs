// The worker the run tests, copied once at the start: `wrangler dev` reloads the worker whenever a
// watched source file changes, answering requests in flight with 503 "Your worker restarted
// mid-request". Serving a copy keeps edits made during the run from restarting it, and the server
// restarted after the crash check runs the same code as before it.
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const COPIED = [
  "src",
  "drizzle",
  "wrangler.toml",
  "tsconfig.json",
  "package.json",
  "worker-configuration.d.ts",
];

export function snapshotApp() {
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

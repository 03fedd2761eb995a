// What the servers run: they are built at the start (the cost pass builds the app again), so a file
// edited during the run can leave figures that belong to no commit. The bench records every file's
// size and mtime at the start and says which changed by the end.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isLoadConfig } from "../lib/server";

const WATCHED = [
  "src",
  "drizzle",
  "wrangler.toml",
  "package.json",
  "package-lock.json",
  "bench/baseline",
  "bench/do-writer",
  "bench/remote-d1",
];

export type Fingerprint = Map<string, string>;

export function fingerprint(): Fingerprint {
  const files: Fingerprint = new Map();
  const visit = (path: string) => {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path);
    } catch {
      return; // absent
    }
    if (st.isDirectory()) {
      // wrangler's own build output (.wrangler/) changes with every start, and the servers' raised
      // copies of a config come and go with them
      for (const name of readdirSync(path))
        if (name !== ".wrangler" && name !== "node_modules" && !isLoadConfig(name))
          visit(join(path, name));
    } else files.set(path, `${st.size}:${st.mtimeMs}`);
  };
  for (const path of WATCHED) visit(path);
  return files;
}

/** Files added, removed or modified between two fingerprints. */
export function changedFiles(before: Fingerprint, after: Fingerprint) {
  const changed: string[] = [];
  for (const [path, sig] of after) if (before.get(path) !== sig) changed.push(path);
  for (const path of before.keys()) if (!after.has(path)) changed.push(path);
  return changed.sort();
}

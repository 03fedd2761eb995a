// Another commit of this repository, checked out beside the working tree for
// `npm run bench -- --against <ref>`: a detached git worktree in a temporary folder with its own
// node_modules (the working tree's, linked, when the two package-lock.json files are the same;
// else `npm ci` from npm's cache where it can), removed when the bench ends, however it ends.
import { execFileSync, spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineEnv } from "../lib/wrangler";
import { cleanUpAtEnd } from "./session";

const git = (args: string[], cwd?: string) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

export type RefCheckout = {
  ref: string;
  commit: string;
  subject: string;
  dir: string;
  /** How its node_modules came: linked to the working tree's, or installed by `npm ci`. */
  install: "linked" | "npm ci";
  installSeconds: number;
};

/** Resolves `ref` to a commit of this repository; throws a clear error when it names none. */
function resolveCommit(ref: string, root: string) {
  try {
    return git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], root);
  } catch {
    throw new Error(`--against ${ref}: no such commit in this repository`);
  }
}

function npmCi(dir: string) {
  // The repository's own install (.ci/run), from npm's cache when it has the packages, with no
  // install scripts: allowScripts runs only the `node` package's, and the bench runs its own Node.
  const args = ["ci", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"];
  const child = spawn("npm", args, {
    cwd: dir,
    env: offlineEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) =>
      status === 0 ? resolve() : reject(new Error(`npm ci in ${dir} failed:\n${output}`)),
    );
  });
}

/** Checks `ref` out in a temporary worktree with its dependencies; removed at the bench's end. */
export async function checkoutRef(
  ref: string,
  { root, log }: { root: string; log: (msg: string) => void },
): Promise<RefCheckout> {
  const commit = resolveCommit(ref, root);
  const subject = git(["log", "-1", "--format=%s", commit], root);
  const dir = mkdtempSync(join(tmpdir(), "wallet-bench-ref-"));
  cleanUpAtEnd(() => removeWorktree(dir, root));
  log(`checking out ${ref} (${commit.slice(0, 12)}) in ${dir}`);
  git(["worktree", "add", "--detach", "--quiet", dir, commit], root);
  const started = Date.now();
  const lock = (at: string) => readFileSync(join(at, "package-lock.json"));
  let install: RefCheckout["install"];
  if (lock(root).equals(lock(dir))) {
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    install = "linked";
  } else {
    log(`${ref} has another package-lock.json: npm ci there`);
    await npmCi(dir);
    install = "npm ci";
  }
  return { ref, commit, subject, dir, install, installSeconds: (Date.now() - started) / 1000 };
}

/** Removes the worktree (its registration and its folder); the linked node_modules stays intact. */
function removeWorktree(dir: string, root: string) {
  const modules = join(dir, "node_modules");
  try {
    if (lstatSync(modules).isSymbolicLink()) unlinkSync(modules);
  } catch {
    // none
  }
  try {
    git(["worktree", "remove", "--force", dir], root);
  } catch {
    // not registered (add failed): only the folder is left
  }
  rmSync(dir, { recursive: true, force: true });
}

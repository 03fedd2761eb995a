// A throwaway local server for benchmarks and reliability checks: its own D1 state in a temporary
// folder, migrated, with an administrator, served on 127.0.0.1 in its own process group by the
// `wrangler dev` command (the suites) or as deployed under Miniflare alone (the benchmarks), and
// stopped (the whole group) by `stop()`.

import type { ChildProcess, SpawnOptions } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { type AdminAccount, ensureAdmin } from "./admin";
import { adminInsertSql } from "./admin-insert";
import { migrateLocalD1 } from "./migrate-local";
import { groupProcesses } from "./process-group";
import {
  offlineEnv,
  startBenchWorker,
  startWranglerDev,
  WRANGLER,
  WRANGLER_VERSION,
  wrangler,
  wranglerSql,
} from "./wrangler";
import { readD1, withRaisedRateLimits } from "./wrangler-toml";

let loadConfigs = 0;

/**
 * Whether the deploy bundle's servers keep what Miniflare plays of the platform (the assets router,
 * the rate limiter: ./bench-worker.ts); BENCH_EMULATIONS=1 keeps them, to measure their local cost.
 */
const EMULATIONS = process.env.BENCH_EMULATIONS === "1";

/** The name of a copy loadConfig writes beside a config: not a source file of the project. */
export const isLoadConfig = (name: string) => /\.load-\d+-\d+\.toml$/.test(name);

/**
 * A copy of `config` beside it (so its paths resolve alike) with the money rate limit raised, for a
 * server that a tool loads from one caller; removed when the server stops, or this process exits.
 */
function loadConfig(config: string) {
  const copy = join(
    dirname(config),
    `${basename(config, ".toml")}.load-${process.pid}-${loadConfigs++}.toml`,
  );
  writeFileSync(copy, withRaisedRateLimits(readFileSync(config, "utf8")));
  process.once("exit", () => rmSync(copy, { force: true }));
  return copy;
}

export const ADMIN: AdminAccount = {
  username: "benchadmin",
  email: "benchadmin@example.test",
  password: "bench-admin-pass",
};

/**
 * A port for a server started afterwards: free now, and below the ephemeral range (Linux's
 * 32768-60999), where the system picks the ports of outgoing connections and of listeners on port 0
 * (workerd's, wrangler's), so none of those can take it before the server binds it.
 */
export async function freePort() {
  for (let tries = 0; tries < 100; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await portIsFree(port)) return port;
  }
  throw new Error("no free port between 20000 and 31999 on 127.0.0.1");
}

/** Whether 127.0.0.1:`port` can be listened on now. */
export function portIsFree(port: number) {
  return new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** The server's process ended before it answered (its reason is on stderr). */
class ServerExited extends Error {}

async function waitUntilUp(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new ServerExited(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server at ${url} did not come up in ${timeoutMs} ms`);
}

type StopOptions = { signal?: NodeJS.Signals; keepState?: boolean };

export type Server = {
  base: string;
  api: string;
  stateDir: string;
  port: number;
  child: ChildProcess;
  /** The JWT_SECRET this server signs with (a fresh random one per start), for minting test tokens. */
  jwtSecret: string;
  /** Stops the whole process group: SIGTERM, or SIGKILL to simulate a crash. */
  stop(options?: StopOptions): Promise<void>;
};

/** Servers started here and not yet stopped, so a caller's Ctrl-C handler can stop them all. */
const live = new Set<Server>();

/** Stops every server this module started and has not stopped yet (for signal and error handlers). */
export async function stopAllServers() {
  await Promise.all([...live].map((server) => server.stop()));
}

/**
 * Fills a local state folder with the migrated database and (unless `seedAdmin` is false) ADMIN.
 * Migrating and seeding take wrangler a few seconds each, so a state is made once and copied: it
 * is kept in node_modules/.cache, named by a hash of everything it is made from (the migrations,
 * the D1 binding, the administrator's insert, which wrangler: a test's stand-in for it makes no
 * state a real one reads).
 */
export async function prepareState(
  stateDir: string,
  { config = "wrangler.toml", seedAdmin = true }: { config?: string; seedAdmin?: boolean } = {},
) {
  cpSync(await preparedState(config, seedAdmin), stateDir, { recursive: true });
}

const STATE_CACHE = resolve(
  import.meta.dirname,
  "..",
  "..",
  "node_modules",
  ".cache",
  "wallet-states",
);

async function preparedState(config: string, seedAdmin: boolean) {
  const d1 = readD1(readFileSync(config, "utf8"), "DB");
  if (!d1) throw new Error(`${config} has no [[d1_databases]] binding DB`);
  const migrations = join(dirname(config), d1.migrationsDir);
  // The seed as its statement writes it (its hash and time left out: they differ every time).
  const seed = seedAdmin && adminInsertSql({ ...ADMIN, passwordHash: "", nowMs: 0 });
  const hash = createHash("sha256").update(
    JSON.stringify({ d1, seed, wrangler: [WRANGLER, WRANGLER_VERSION] }),
  );
  for (const name of readdirSync(migrations)
    .filter((n) => n.endsWith(".sql"))
    .sort())
    hash.update(name).update(readFileSync(join(migrations, name)));
  const cached = join(STATE_CACHE, hash.digest("hex").slice(0, 16));
  if (existsSync(cached)) return cached;
  // The seeded state is the migrated one and its administrator: migrated once for both.
  const migrated = seedAdmin ? await preparedState(config, false) : undefined;

  // Made aside and renamed into place whole, so a folder found in the cache is always complete. A
  // process that finds another making the same one waits for it (test files start servers at once);
  // of two making it all the same, the first rename wins and the second is dropped.
  mkdirSync(STATE_CACHE, { recursive: true });
  await othersMaking(`${cached}.making`, cached);
  const making = mkdtempSync(join(STATE_CACHE, "making-"));
  let claimed = false;
  try {
    mkdirSync(`${cached}.making`);
    claimed = true;
  } catch {
    // made by another meanwhile: go on all the same
  }
  try {
    const args = ["--config", config, "--persist-to", making];
    if (migrated) cpSync(migrated, making, { recursive: true });
    else migrateLocalD1({ config, persistTo: making });
    if (seedAdmin) await ensureAdmin(ADMIN, wranglerSql("--local", args));
    renameSync(making, cached);
  } catch (error) {
    if (!existsSync(cached)) throw error;
  } finally {
    rmSync(making, { recursive: true, force: true });
    if (claimed) rmSync(`${cached}.making`, { recursive: true, force: true });
  }
  return cached;
}

/**
 * Waits while another process makes `cached` (`marker` is its claim): until the state is there or
 * the claim is gone, or older than a making takes on a loaded machine (a process that died).
 */
async function othersMaking(marker: string, cached: string) {
  for (;;) {
    const since = statSync(marker, { throwIfNoEntry: false })?.mtimeMs;
    if (since === undefined || existsSync(cached) || Date.now() - since > 10 * 60_000) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Starts the worker (or another wrangler config) on a free port. `persistTo` reuses a state folder
 * (for restarts); by default a new temporary one is made and removed on `stop({ keepState: false })`.
 * A folder is prepared (prepareState) only while it holds no database: a restart, or a copy of a
 * prepared folder, serves what it holds.
 */
export async function startServer({
  config: shippedConfig = "wrangler.toml",
  shippedRateLimits = false,
  persistTo,
  port,
  logLevel = "warn",
  seedAdmin = true,
  onStdout,
  seedFile,
  wranglerDev = true,
  inspectorPort,
  vars: extraVars = {},
  emulations = EMULATIONS,
}: {
  config?: string;
  /**
   * Serve the config's `[[ratelimits]]` as they ship; by default they are raised out of the way of
   * the tools' load from one caller (benches, the reliability suite), which measure the ledger.
   */
  shippedRateLimits?: boolean;
  persistTo?: string;
  port?: number;
  /** wrangler dev's `--log-level` (only with `wranglerDev`). */
  logLevel?: string;
  seedAdmin?: boolean;
  /**
   * Receives the server's stdout: the worker's console.log lines (under wrangler dev, from log level
   * "log" on; else all of them, which are dropped unread when nothing asks for them).
   */
  onStdout?: (chunk: Buffer) => void;
  /** An SQL file run against the migrated database before the server starts (bulk fixtures). */
  seedFile?: string;
  /**
   * true: the `wrangler dev` command, with its proxy, log reader and DevTools inspector; false: the
   * deploy bundle under Miniflare alone (./bench-worker.ts), which the benchmarks measure, as a
   * deployed Worker has none of the three.
   */
  wranglerDev?: boolean;
  /**
   * The DevTools inspector's port. Under wrangler dev it is the CLI's proxy, a free port by default:
   * wrangler's own default, 9229, is taken by whichever of two servers starting at once binds it
   * first, and the other exits. Under Miniflare alone, workerd's own, none unless given.
   */
  inspectorPort?: number;
  /** More vars for the worker (e.g. WEBHOOK_SECRET_KEY and WEBHOOK_ALLOW_LOCAL for webhooks). */
  vars?: Record<string, string>;
  /**
   * Under Miniflare alone, keep its assets router and rate limiter, as `npm run serve` does (the
   * benches leave them out, unless BENCH_EMULATIONS=1).
   */
  emulations?: boolean;
} = {}): Promise<Server> {
  // A var wrangler dev cannot be given is refused before anything is made for the server.
  if (wranglerDev) for (const [name, value] of Object.entries(extraVars)) varsLine(name, value);
  const config = shippedRateLimits ? shippedConfig : loadConfig(shippedConfig);
  const stateDir = persistTo ?? mkdtempSync(join(tmpdir(), "wallet-state-"));
  const persist = ["--persist-to", stateDir];
  const configArgs = ["--config", config];
  /** wrangler dev's vars, while it runs (see writeVarsFile). */
  const varsFile = join(stateDir, "wrangler-dev.env");
  /** What this call made for the server: the temporary state and the config's copy. */
  const removeOwn = ({ keepState }: { keepState: boolean }) => {
    if (!keepState) rmSync(stateDir, { recursive: true, force: true });
    if (config !== shippedConfig) rmSync(config, { force: true });
  };
  const removeOwnState = () => removeOwn({ keepState: persistTo !== undefined });
  try {
    // Copying a prepared state over a kept one would replace its database with an empty one.
    if (!existsSync(join(stateDir, "v3", "d1")))
      await prepareState(stateDir, { config, seedAdmin });
    if (seedFile)
      wrangler(["d1", "execute", "DB", "--local", ...configArgs, ...persist, "--file", seedFile], {
        quiet: true,
      });
  } catch (error) {
    removeOwnState();
    throw error;
  }
  // A port found free can be taken before the server binds it (the server's own helpers bind port
  // 0, and the kernel may hand them the one just probed): a server that exits at once on a port
  // chosen here gets another, twice.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(port ?? (await freePort()));
    } catch (error) {
      if (!(error instanceof ServerExited) || port !== undefined || attempt === 3) {
        removeOwnState();
        throw error;
      }
    }
  }

  async function launch(listenPort: number): Promise<Server> {
    const inspector = wranglerDev ? (inspectorPort ?? (await freePort())) : inspectorPort;
    const secret = randomBytes(32).toString("hex");
    const base = `http://127.0.0.1:${listenPort}`;
    const vars = { ...extraVars, JWT_SECRET: secret, SITE_URL: base };
    const stdio: SpawnOptions["stdio"] = ["ignore", onStdout ? "pipe" : "ignore", "inherit"];
    // Miniflare's runtime files (/tmp/miniflare-…) go when it stops, but not when a test SIGKILLs
    // it: each server keeps them in a folder of its own, removed when it stops either way.
    const scratch = mkdtempSync(join(tmpdir(), "wallet-server-tmp-"));
    const child = wranglerDev
      ? startWranglerDev(
          [
            ...configArgs,
            ...persist,
            "--ip",
            "127.0.0.1",
            "--port",
            String(listenPort),
            "--show-interactive-dev-session=false",
            // The cron is fired by hand (GET /__scheduled), and wrangler then does not warn that
            // it is not fired by itself.
            "--test-scheduled",
            `--log-level=${logLevel}`,
            ...(inspector === undefined ? [] : ["--inspector-port", String(inspector)]),
            "--env-file",
            writeVarsFile(varsFile, vars),
          ],
          {
            stdio,
            env: offlineEnv({
              // Wrangler's debug file of every line the worker logs goes with the server's state,
              // not into ~/.config/.wrangler/logs.
              WRANGLER_LOG_PATH: join(stateDir, "wrangler-debug.log"),
              // Whatever the caller's shell sets, the vars file is read, and the worker gets no
              // more than it (not this process's environment).
              CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true",
              CLOUDFLARE_INCLUDE_PROCESS_ENV: "false",
              TMPDIR: scratch,
            }),
          },
        )
      : startBenchWorker(
          {
            config,
            port: listenPort,
            persist: stateDir,
            vars,
            logs: onStdout !== undefined,
            emulations,
            inspectorPort: inspector,
            bundle: bundleFolder(shippedConfig),
          },
          { stdio, env: offlineEnv({ TMPDIR: scratch }) },
        );
    if (onStdout) child.stdout?.on("data", onStdout);
    const server: Server = {
      base,
      api: `${base}/wp-json/wallet/v1`,
      stateDir,
      port: listenPort,
      child,
      jwtSecret: secret,
      async stop({ signal = "SIGTERM", keepState = persistTo !== undefined } = {}) {
        await halt(signal);
        removeOwn({ keepState });
      },
    };
    /** Ends the server's processes (endProcessGroup), leaving its state and config. */
    async function halt(signal: NodeJS.Signals) {
      await endProcessGroup(child, signal);
      rmSync(varsFile, { force: true });
      rmSync(scratch, { recursive: true, force: true });
      live.delete(server);
    }
    live.add(server);
    try {
      await waitUntilUp(`${base}/wp-json/`, child, 60_000);
    } catch (error) {
      // A server that never came up is not left running; its state and config stay for the
      // next attempt (startServer removes them after the last).
      await halt("SIGTERM");
      throw error;
    }
    return server;
  }
}

/** Children whose whole group endProcessGroup has ended. */
const ended = new WeakSet<ChildProcess>();

/**
 * Ends every process of a detached child's group: `signal` to the group, then SIGKILL if any still
 * runs after 10 s. Not only the child's exit is waited for: a wrapper in its place (a test's
 * stand-in for wrangler) may end before the wrangler and workerd it runs, and wrangler writes its
 * debug log into the state folder (creating it again, were it removed) until it ends, as workerd
 * holds the local D1 until it ends.
 */
export async function endProcessGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") {
  const running = () => child.exitCode === null && child.signalCode === null; // a signalled child has exitCode null
  const group = child.pid;
  // A group seen ended is not looked for again: its number may since lead someone else's group.
  if (group === undefined || ended.has(child)) return;
  if (!(running() || groupRunning(group))) {
    ended.add(child);
    return;
  }
  const exited = running() ? new Promise((r) => child.once("exit", r)) : undefined;
  try {
    process.kill(-group, signal);
  } catch {
    // already gone
  }
  const deadline = Date.now() + 10_000;
  // unref: a stopped server's timer keeps no caller waiting (vitest waits for pending timers).
  if (exited) await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
  while (groupRunning(group) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (running() || groupRunning(group)) {
    try {
      process.kill(-group, "SIGKILL"); // did not stop in 10 s
    } catch {
      // gone meanwhile
    }
  }
  ended.add(child);
}

/**
 * Whether a process of group `pgid` still runs. Zombies are left out: they write nothing, and an
 * orphan's stays listed until the machine's init reaps it, which in a sandbox can take seconds
 * (about 2 s on the machine the suites run on). Without /proc, whether any member is left.
 */
function groupRunning(pgid: number) {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return groupProcesses(pgid).some(({ fields: [state] }) => state !== "Z" && state !== "X");
}

/**
 * Writes a `wrangler dev` server's vars to `file`, readable by its owner alone, for `--env-file`:
 * as `--var`s they would be on its command line, which every user of the machine can list (ps),
 * the secret its tokens are signed with among them. And a server given an env file does not read
 * the `.dev.vars` beside its config, the developer's own settings for `npm run dev`.
 */
function writeVarsFile(file: string, vars: Record<string, string>) {
  rmSync(file, { force: true }); // a new file, so the mode below is its mode
  const lines = Object.entries(vars).map(([name, value]) => varsLine(name, value));
  writeFileSync(file, lines.join(""), { mode: 0o600 });
  return file;
}

/**
 * A var as wrangler reads it back from an env file (dotenv, then dotenv-expand): single quotes keep
 * `#`, spaces and backslashes as written; what they cannot keep (a quote, a line break, a `$`,
 * which would be read as a reference to another variable) is refused.
 */
function varsLine(name: string, value: string) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || /['$\r\n]/.test(value))
    throw new Error(`startServer: var ${name} cannot be passed to wrangler dev as written`);
  return `${name}='${value}'\n`;
}

/** Per config, the folder its servers under Miniflare alone share their bundle in (./bench-worker.ts). */
const bundles = new Map<string, string>();

/**
 * Removes the bundle folders this process's servers shared: when it exits, or sooner where it
 * ends without exiting so (vitest ends a test file's process without its `exit` listeners).
 */
export function removeSharedBundles() {
  for (const folder of bundles.values()) rmSync(folder, { recursive: true, force: true });
  bundles.clear();
}
process.once("exit", removeSharedBundles);

function bundleFolder(config: string) {
  const key = resolve(config);
  let folder = bundles.get(key);
  if (folder === undefined) {
    folder = mkdtempSync(join(tmpdir(), "wallet-bench-bundle-"));
    bundles.set(key, folder);
  }
  return folder;
}

/** Signs in as the seeded administrator and returns `Authorization` header value. */
export async function adminAuth(api: string) {
  const res = await fetch(`${api}/users/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_email: ADMIN.email, user_password: ADMIN.password }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`admin login answered ${res.status}: ${text}`);
  const body = JSON.parse(text) as { data: { access_token: string } };
  return `Bearer ${body.data.access_token}`;
}

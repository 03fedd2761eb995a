// How `npm run dev` and `npm run serve` meet a bad configuration or option: refused in a line or a
// few saying what is wrong, before the local D1 (.wrangler/state) or .dev.vars is written, never as a
// stack trace; and how `npm run dev` meets the local D1 it left. Each case runs the tool, as npm
// runs it, in a fresh copy of the project (no .dev.vars, no local state), stopped (its process
// group) if it is still running after a minute: a tool that should have refused but serves fails
// its test.
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/server";
import { offlineEnv, runWrangler } from "../../scripts/lib/wrangler";
import { copyProject, editedToml, scriptCommand } from "./project-copy";

const work = mkdtempSync(path.join(tmpdir(), "wallet-dev-config-"));
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) if (child.pid) process.kill(-child.pid, "SIGINT");
  rmSync(work, { recursive: true, force: true });
});

let projects = 0;
const project = (toml?: string) => copyProject(path.join(work, `p${++projects}`), toml);

/** The tool as package.json runs it (`tsx …`), with `args`, in `dir`; at most `ms` before stopped. */
async function run(
  script: "dev" | "serve",
  dir: string,
  args: string[] = [],
  env: Record<string, string> = {},
  ms = 60_000,
  until?: RegExp,
) {
  const child = spawn(...scriptCommand(script, args), {
    cwd: dir,
    detached: true,
    env: { ...process.env, ...offlineEnv(), PORT: String(await freePort()), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let output = "";
  let stillRunning = false;
  let stopped = false;
  const take = (chunk: Buffer) => {
    output += chunk;
    // Seen what the test looks at: the tool is stopped (as Ctrl-C does), not waited for.
    if (until?.test(output) && !stopped) {
      stopped = true;
      process.kill(-child.pid!, "SIGINT");
    }
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  const timer = setTimeout(() => {
    stillRunning = true;
    process.kill(-child.pid!, "SIGINT");
  }, ms);
  const status = await new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  clearTimeout(timer);
  running.delete(child);
  // Whatever the tool left running in its group (a workerd) goes with it.
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // the group is gone
  }
  return {
    status,
    stillRunning,
    output,
    localD1: existsSync(path.join(dir, ".wrangler/state")),
    devVars: existsSync(path.join(dir, ".dev.vars")),
  };
}

/** What a stack trace leaves in the output: frames, or Node's last line for an uncaught error. */
const STACK = /^\s+at .+[(:]\d+|^Node\.js v\d+/m;

describe("npm run serve and npm run dev with a wrangler.toml the runtime would refuse", () => {
  // Each passes wrangler's d1 commands: without the check, the local D1 was migrated and seeded and
  // the sign-in banner printed before Miniflare or the bundle refused it, three of them as a stack
  // trace (lib/config-check.ts).
  it.each([
    [
      "a [[ratelimits]] limit of 0",
      editedToml(/simple = \{ limit = \d+,/, "simple = { limit = 0,"),
      "[[ratelimits]] MONEY_RATE_LIMIT must count a whole limit of at least 1",
    ],
    [
      "a compatibility_date in the future",
      editedToml(/^compatibility_date = .*$/m, 'compatibility_date = "2099-01-01"'),
      'compatibility_date "2099-01-01" is in the future',
    ],
    [
      "a Durable Object class_name the code does not export",
      editedToml(
        'name = "HISTORY_GATE"\nclass_name = "HistoryGate"',
        'name = "HISTORY_GATE"\nclass_name = "NoSuchGate"',
      ),
      'HISTORY_GATE names class_name = "NoSuchGate"; it must be "HistoryGate"',
    ],
    [
      "a main that names no file",
      editedToml(/^main = .*$/m, 'main = "src/no-such-entry.ts"'),
      'main names "src/no-such-entry.ts", which does not exist',
    ],
    [
      "a Durable Object class left out of [[migrations]]",
      editedToml('new_sqlite_classes = ["HistoryGate"]', "new_sqlite_classes = []"),
      'no [[migrations]] entry lists "HistoryGate" in new_sqlite_classes',
    ],
    // Served anyway, its object had no SQL storage: GET /health answered 200 and every sign-in 500.
    [
      "a Durable Object class made without SQLite storage",
      editedToml('new_sqlite_classes = ["LoginThrottle"]', 'new_classes = ["LoginThrottle"]'),
      'no [[migrations]] entry lists "LoginThrottle" in new_sqlite_classes',
    ],
  ])("refuses %s before the local D1 is touched, in words", async (_what, toml, words) => {
    for (const script of ["serve", "dev"] as const) {
      const dir = project(toml);
      const ran = await run(script, dir, script === "serve" ? ["--quiet"] : []);
      expect(ran.stillRunning, ran.output).toBe(false);
      expect(ran.status, ran.output).toBe(1);
      expect(ran.output).toContain(words);
      expect(ran.output).toContain(`then run npm run ${script} again; nothing was changed`);
      expect(ran.localD1, "the local D1 was written before the refusal").toBe(false);
      expect(ran.devVars).toBe(false);
      expect(ran.output).not.toMatch(STACK);
    }
  });
});

describe("npm run dev with a bad wrangler.toml", () => {
  // Without the check, wrangler's refusal of its first command (d1 migrations apply) ended as an
  // uncaught error; a renamed binding was "No migrations present", naming neither.
  it.each([
    [
      "that is no TOML",
      editedToml("keep_names = false", "keep_names = = false"),
      "wrangler.toml:7",
    ],
    [
      "whose compatibility_date is no date",
      editedToml(/^compatibility_date = .*$/m, 'compatibility_date = "2026-13-45"'),
      "compatibility_date",
    ],
    [
      "whose D1 binding is not named DB",
      editedToml('binding = "DB"', 'binding = "DATABASE"'),
      'no [[d1_databases]] with binding = "DB"',
    ],
  ])("refuses one %s in words, no stack trace", async (_what, toml, words) => {
    const dir = project(toml);
    const dev = await run("dev", dir);
    expect(dev.stillRunning, dev.output).toBe(false);
    expect(dev.status, dev.output).toBe(1);
    expect(dev.output).not.toMatch(STACK);
    expect(dev.output).toContain(words);
    expect(dev.localD1).toBe(false);
  });
});

describe("npm run dev's own inputs", () => {
  it("refuses a WALLET_ADMIN_PASSWORD too short, naming it, before the local D1 is touched", async () => {
    const dir = project();
    const dev = await run("dev", dir, [], { WALLET_ADMIN_PASSWORD: "abc" });
    expect(dev.stillRunning, dev.output).toBe(false);
    expect(dev.status, dev.output).toBe(1);
    expect(dev.output).toContain(
      "npm run dev: WALLET_ADMIN_PASSWORD: the local administrator's password must have at least 6 characters.",
    );
    expect(dev.output).not.toMatch(STACK);
    expect(dev.localD1).toBe(false);
  });

  // The Worker answers 503 service_not_configured on every route for each of these (src/settings.ts):
  // served anyway, the banner's sign-in command was answered so.
  it.each([
    [
      "a SITE_URL environment variable that is no URL",
      undefined,
      undefined,
      { SITE_URL: "wallet.local:8800" },
      "npm run dev: SITE_URL (the SITE_URL environment variable) is not an absolute http(s) URL.",
    ],
    [
      "a [vars] SITE_TIMEZONE the runtime does not know",
      editedToml('SITE_TIMEZONE = "UTC"', 'SITE_TIMEZONE = "Mars/Olympus_Mons"'),
      undefined,
      {},
      "npm run dev: SITE_TIMEZONE (wrangler.toml [vars]) is not a time zone the runtime knows.",
    ],
    [
      "a JWT_ISSUER set nowhere",
      editedToml('JWT_ISSUER = "wallet-ledger"\n', ""),
      undefined,
      {},
      "npm run dev: JWT_ISSUER (wrangler.toml [vars] or .dev.vars) is unset.",
    ],
    [
      "a .dev.vars JWT_ISSUER of spaces",
      undefined,
      "JWT_ISSUER=' '\n",
      {},
      "npm run dev: JWT_ISSUER (.dev.vars) is unset.",
    ],
  ])(
    "refuses %s, naming it and where it is set, writing nothing",
    async (_what, toml, devVars, env, words) => {
      const dir = project(toml);
      if (devVars !== undefined) await writeFile(path.join(dir, ".dev.vars"), devVars);
      const dev = await run("dev", dir, [], env, 45_000);
      expect(dev.stillRunning, dev.output).toBe(false);
      expect(dev.status, dev.output).toBe(1);
      expect(dev.output).toContain(words);
      expect(dev.output).toContain("then run npm run dev again; nothing was changed");
      expect(dev.output).not.toMatch(STACK);
      expect(dev.localD1).toBe(false);
      if (devVars !== undefined)
        expect(readFileSync(path.join(dir, ".dev.vars"), "utf8")).toBe(devVars);
      else expect(dev.devVars).toBe(false);
    },
  );

  it("--help prints its usage and exits 0, writing nothing and serving nothing", async () => {
    const dir = project();
    const dev = await run("dev", dir, ["--help"], {}, 45_000);
    expect(dev.stillRunning, dev.output).toBe(false);
    expect(dev.status, dev.output).toBe(0);
    expect(dev.output).toContain("npm run dev");
    expect(dev.output).toContain("--port");
    expect(dev.devVars).toBe(false);
    expect(dev.localD1).toBe(false);
  });

  it("refuses an option it does not know (--prot, a typo of --port), writing nothing", async () => {
    const dir = project();
    const dev = await run("dev", dir, ["--prot", "8080"], {}, 45_000);
    expect(dev.stillRunning, dev.output).toBe(false);
    expect(dev.status, dev.output).not.toBe(0);
    expect(dev.output).toContain("Unknown option '--prot'");
    expect(dev.devVars).toBe(false);
    expect(dev.localD1).toBe(false);
  });

  it("adds the secrets .dev.vars holds empty or too short, saying which", async () => {
    const dir = project();
    await writeFile(path.join(dir, ".dev.vars"), "JWT_SECRET=\nWEBHOOK_SECRET_KEY=short\n");
    const dev = await run(
      "dev",
      dir,
      [],
      {},
      45_000,
      /WEBHOOK_SECRET_KEY to .dev.vars[^\n]*\n|Error/,
    );
    expect(dev.output).toContain("Added a dev-only JWT_SECRET to .dev.vars (its own was empty).");
    expect(dev.output).toContain(
      "Added a dev-only WEBHOOK_SECRET_KEY to .dev.vars (its own was shorter than 32 characters).",
    );
    const devVars = parseEnv(readFileSync(path.join(dir, ".dev.vars"), "utf8"));
    expect(devVars.JWT_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(devVars.WEBHOOK_SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
  });

  it("makes a .dev.vars others can read its owner's alone, saying so", async () => {
    const dir = project();
    const file = path.join(dir, ".dev.vars");
    await writeFile(file, `JWT_SECRET=${"a".repeat(64)}\nWEBHOOK_SECRET_KEY=${"b".repeat(64)}\n`);
    chmodSync(file, 0o644);
    const dev = await run("dev", dir, [], {}, 45_000, /\.dev\.vars[^\n]*0600[^\n]*\n|Error/);
    expect(dev.output).toContain(
      "Made .dev.vars readable by its owner alone (mode 0600; it was 0644): it holds secrets.",
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parseEnv(readFileSync(file, "utf8")).JWT_SECRET).toBe("a".repeat(64));
  });
});

describe("npm run dev on the local D1 it left", () => {
  it("migrates what was added since, and seeds nothing twice", async () => {
    const dir = project();
    const served = /^Wallet API on .*$/m;
    const first = await run("dev", dir, [], {}, 90_000, served);
    expect(first.output).toContain('Local administrator "admin" created.');
    expect(first.output).toContain('Demo wallet "ngn" (Naira Wallet, ₦, 2 decimals) created.');
    // A migration shipped since the last start (a pull): applied before anything is seeded.
    writeFileSync(path.join(dir, "drizzle/9999_added.sql"), "CREATE TABLE added (id INTEGER);\n");
    const again = await run("dev", dir, [], {}, 90_000, served);
    expect(again.output).toMatch(served);
    expect(again.output).toContain(
      'Local administrator "admin@example.com" already exists; left as it is.',
    );
    expect(again.output).toContain("The local database has wallets already: no demo wallet added.");
    const read = runWrangler(
      ["d1", "execute", "DB", "--local", "--json", "--command", "SELECT name FROM d1_migrations"],
      {},
      dir,
    );
    const [{ results }] = JSON.parse(read.stdout) as [{ results: { name: string }[] }];
    expect(results.map((row) => row.name)).toContain("9999_added.sql");
    expect(results).toHaveLength(
      readdirSync(path.join(dir, "drizzle")).filter((f) => f.endsWith(".sql")).length,
    );
  });
});

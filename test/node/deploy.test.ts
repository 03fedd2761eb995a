// `npm run deploy` against a stub wrangler (./stub-wrangler.mjs) that records each command and
// answers from a state file as wrangler 4.164 would (its --json forms and its output file): the
// commands run in order, the wrangler.toml left behind, what the operator is told. Nothing here
// reaches Cloudflare. stdin is a pipe, as in CI: nothing is ever asked.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { D1_QUERY_LIMIT_S, REWRITES_EVERY_ENTRY } from "../../scripts/lib/large-migrations";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { editedToml, SHIPPED_TOML } from "./project-copy";
import { runScriptAsync } from "./run-script";

const ROOT = path.resolve(import.meta.dirname, "../..");
const MIGRATIONS = readdirSync(path.join(ROOT, "drizzle"))
  .filter((f) => f.endsWith(".sql"))
  .sort();
const work = mkdtempSync(path.join(tmpdir(), "wallet-deploy-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type State = {
  loggedIn: boolean;
  email: string;
  accounts: { id: string; name: string }[];
  databases: { uuid: string; name: string }[];
  applied: Record<string, string[]>;
  worker: { secrets: string[]; secretLengths: Record<string, number> } | null;
  subdomain: string | null;
  commands: string[];
  commandLines?: string[];
  deployments: { databaseId: string; pendingMigrations: string[] }[];
  queues?: string[];
  users?: { id: number; username: string; email: string; passwordHash: string; role: string }[];
  failInsert?: boolean;
  /** How many entries each database holds. */
  entries?: Record<string, number>;
  /** The largest entry id of each database, when above its count (imported WordPress post ids). */
  largestIds?: Record<string, number>;
};

const freshAccount = (): State => ({
  loggedIn: true,
  email: "ops@example.com",
  accounts: [{ id: "acc1", name: "Example Ltd" }],
  databases: [],
  applied: {},
  worker: null,
  subdomain: "example-ops",
  commands: [],
  deployments: [],
});

let projects = 0;
/** A checkout of the shipped wrangler.toml and migrations, and the account the stub plays. */
function project(state: State, toml = SHIPPED_TOML) {
  const dir = path.join(work, `project-${++projects}`);
  mkdirSync(path.join(dir, "tmp"), { recursive: true });
  // tsx keeps the tools it compiled in the temporary folder, as tsx-<uid>: that of every other run,
  // so each run here does not compile them anew.
  const compiled = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  mkdirSync(path.join(tmpdir(), compiled), { recursive: true });
  symlinkSync(path.join(tmpdir(), compiled), path.join(dir, "tmp", compiled));
  cpSync(path.join(ROOT, "drizzle"), path.join(dir, "drizzle"), { recursive: true });
  symlinkSync(path.join(ROOT, "src"), path.join(dir, "src"), "dir"); // what `main` names
  writeFileSync(path.join(dir, "wrangler.toml"), toml);
  writeFileSync(path.join(dir, "state.json"), JSON.stringify(state));
  return dir;
}

/** The first administrator as CI passes it: flags, and the password in the environment. */
const PASSWORD = "correct horse battery";
const ADMIN_FLAGS = ["--admin-username", "alice", "--admin-email", "alice@example.com"];
const ADMIN_ENV = { WALLET_ADMIN_PASSWORD: PASSWORD };

/** A command as the tests compare it: the SQL of `d1 execute` named by what it does. */
const label = (line: string) =>
  line
    .replace(/--secrets-file \S+/, "--secrets-file <file>")
    .replace(
      /--command CREATE TABLE IF NOT EXISTS d1_migrations.*/s,
      "--command <applied migrations>",
    )
    .replace(
      /--command SELECT count\(\*\) AS administrators.*/s,
      "--command <count administrators>",
    )
    .replace(/--command INSERT INTO users.*/s, "--command <insert administrator>")
    .replace(
      /--command SELECT (count\(\*\)|coalesce\(max\(id\), 0\)) AS entries FROM transactions$/s,
      "--command <count entries>",
    );
const sql = (what: string) => `d1 execute DB --remote --json --command <${what}>`;

async function deploy(dir: string, env: Record<string, string> = {}, args: string[] = []) {
  const { CLOUDFLARE_ACCOUNT_ID: _, WALLET_ADMIN_PASSWORD: __, ...inherited } = offlineEnv();
  const result = await runScriptAsync("scripts/deploy.ts", args, {
    cwd: dir,
    env: {
      ...inherited,
      WRANGLER_BIN: path.join(ROOT, "test/node/stub-wrangler.mjs"),
      STUB_WRANGLER_STATE: path.join(dir, "state.json"),
      TMPDIR: path.join(dir, "tmp"),
      ...env,
    },
  });
  const state = JSON.parse(readFileSync(path.join(dir, "state.json"), "utf8")) as State;
  return {
    status: result.status,
    output: result.stdout + result.stderr,
    state,
    commands: state.commands.map(label),
    toml: readFileSync(path.join(dir, "wrangler.toml"), "utf8"),
  };
}

const withId = (id: string) =>
  SHIPPED_TOML.replace(
    'database_name = "wallet-ledger"\n',
    `database_name = "wallet-ledger"\ndatabase_id = "${id}"\n`,
  );

/** What a first run on a fresh account does before the secrets: login, database, queues, migrations. */
const FRESH_SETUP = [
  "whoami --json",
  "d1 list --json",
  "d1 create wallet-ledger",
  "d1 list --json",
  "queues info wallet-webhooks",
  "queues create wallet-webhooks",
  "queues info wallet-webhooks-dlq",
  "queues create wallet-webhooks-dlq",
  sql("applied migrations"),
  "d1 migrations apply DB --remote",
];

// Each test deploys a project folder and stub account of its own: they run at once (each tool run
// spends most of its time loading modules).
describe.concurrent("npm run deploy", () => {
  it("ships no database id and no localhost SITE_URL in wrangler.toml", async () => {
    expect(SHIPPED_TOML).not.toMatch(/^database_id/m);
    expect(SHIPPED_TOML).not.toMatch(/127\.0\.0\.1|localhost/);
    expect(SHIPPED_TOML).toMatch(/^binding = "DB"\ndatabase_name = "wallet-ledger"$/m);
  });

  it("on a fresh account creates the database, writes its id, creates the queues, migrates, creates the administrator from flags and env, then uploads with generated secrets", async () => {
    const dir = project(freshAccount());
    const run = await deploy(dir, ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    expect(run.commands).toEqual([
      ...FRESH_SETUP,
      "secret list --format json",
      sql("count administrators"),
      sql("insert administrator"),
      "deploy --minify --secrets-file <file>",
    ]);
    const [db] = run.state.databases;
    expect(run.toml).toBe(withId(db!.uuid));
    // The code went up against a database that had every migration.
    expect(run.state.applied[db!.uuid]).toEqual(MIGRATIONS);
    expect(run.state.deployments).toEqual([{ databaseId: db!.uuid, pendingMigrations: [] }]);
    expect(run.state.worker).toEqual({
      secrets: ["JWT_SECRET", "WEBHOOK_SECRET_KEY"],
      secretLengths: { JWT_SECRET: 64, WEBHOOK_SECRET_KEY: 64 },
    });
    expect(run.state.queues).toEqual(["wallet-webhooks", "wallet-webhooks-dlq"]);
    expect(run.state.users).toEqual([
      expect.objectContaining({ id: 1, username: "alice", email: "alice@example.com" }),
    ]);
    expect(run.state.users![0]!.role).toBe("administrator");
    // The service's own hash went to D1; the password itself went nowhere.
    expect(run.state.users![0]!.passwordHash).toMatch(/^pbkdf2/);
    expect(JSON.stringify(run.state)).not.toContain(PASSWORD);
    expect(run.output).not.toContain(PASSWORD);
    expect(run.output).toContain("Created administrator alice <alice@example.com> (id 1).");
    expect(run.output).not.toMatch(/[0-9a-f]{64}/);
    // The generated secret's file is gone (tsx keeps its own cache there).
    expect(
      readdirSync(path.join(dir, "tmp")).filter((f) => f.startsWith("wallet-deploy-")),
    ).toEqual([]);
    expect(run.output).toContain(`Created D1 database "wallet-ledger" (${db!.uuid}).`);
    expect(run.output).toContain("Secret JWT_SECRET is missing: a random one (32 bytes)");
    expect(run.output).toContain("Secret WEBHOOK_SECRET_KEY is missing: a random one (32 bytes)");
    expect(run.output).toContain('Created queue "wallet-webhooks".');
    // GET /transactions always asks for a security_code (the plugin's contract); unset, any integer.
    expect(run.output).toContain(
      "Secret TRANSACTIONS_SECURITY_CODE (optional) is not set: GET /transactions takes any integer\n" +
        "as security_code",
    );
    expect(run.output).toContain(
      `Applying ${MIGRATIONS.length} migration(s) to the remote database`,
    );
    expect(run.output).toContain(
      "API:      https://wallet-ledger.example-ops.workers.dev/wp-json/wallet/v1",
    );
    expect(run.output).toContain(
      "Console:  https://wallet-ledger.example-ops.workers.dev/wallet-admin/",
    );
    expect(run.output).toContain("Health:   https://wallet-ledger.example-ops.workers.dev/health");
    expect(run.output).not.toContain("admin:create");
  });

  it("a second run finds everything in place and only deploys: no create, no migration, no secret, no administrator asked, wrangler.toml untouched", async () => {
    const dir = project(freshAccount());
    const first = await deploy(dir, ADMIN_ENV, ADMIN_FLAGS);
    expect(first.status, first.output).toBe(0);
    const state = { ...first.state, commands: [] };
    writeFileSync(path.join(dir, "state.json"), JSON.stringify(state));
    const second = await deploy(dir);
    expect(second.status, second.output).toBe(0);
    expect(second.commands).toEqual([
      "whoami --json",
      "d1 list --json",
      "queues info wallet-webhooks",
      "queues info wallet-webhooks-dlq",
      sql("applied migrations"),
      "secret list --format json",
      sql("count administrators"),
      "deploy --minify",
    ]);
    expect(second.toml).toBe(first.toml);
    expect(second.state.users).toEqual(first.state.users);
    expect(second.output).toContain("Administrator: the database has one; nothing to ask.");
    expect(second.state.worker).toEqual(first.state.worker);
    expect(second.output).toContain("is in place.");
    expect(second.output).toContain("Secret JWT_SECRET is set.");
    expect(second.output).toContain("Secret WEBHOOK_SECRET_KEY is set.");
    expect(second.output).toContain("Queues in place: wallet-webhooks, wallet-webhooks-dlq.");
    expect(second.output).toContain("Migrations: none pending.");
    expect(second.output).toContain(
      "Console:  https://wallet-ledger.example-ops.workers.dev/wallet-admin/",
    );
  });

  it("finds a database of that name already in the account, writes its id and applies only the migrations it lacks", async () => {
    const uuid = "0d1e0000-0000-4000-8000-000000000042";
    const state: State = {
      ...freshAccount(),
      databases: [
        { uuid: "0d1e0000-0000-4000-8000-000000000001", name: "another-app" },
        { uuid, name: "wallet-ledger" },
      ],
      applied: { [uuid]: MIGRATIONS.slice(0, -1) },
      worker: {
        secrets: ["JWT_SECRET", "TRANSACTIONS_SECURITY_CODE", "WEBHOOK_SECRET_KEY"],
        secretLengths: {},
      },
      queues: ["wallet-webhooks", "wallet-webhooks-dlq"],
      users: [
        {
          id: 7,
          username: "root",
          email: "root@example.com",
          passwordHash: "x",
          role: "administrator",
        },
      ],
    };
    const run = await deploy(project(state));
    expect(run.status, run.output).toBe(0);
    expect(run.commands).toEqual([
      "whoami --json",
      "d1 list --json",
      "queues info wallet-webhooks",
      "queues info wallet-webhooks-dlq",
      sql("applied migrations"),
      "d1 migrations apply DB --remote",
      "secret list --format json",
      sql("count administrators"),
      "deploy --minify",
    ]);
    expect(run.toml).toBe(withId(uuid));
    expect(run.state.applied[uuid]).toEqual(MIGRATIONS);
    expect(run.output).toContain(`Found D1 database "wallet-ledger" (${uuid}).`);
    expect(run.output).toContain(
      `Applying 1 migration(s) to the remote database: ${MIGRATIONS.at(-1)}`,
    );
    expect(run.output).not.toContain("TRANSACTIONS_SECURITY_CODE (optional) is not set");
  });

  it("refuses a pending migration that rewrites every entry when D1 would stop it at 30 s, and applies one that fits", async () => {
    const uuid = "0d1e0000-0000-4000-8000-000000000043";
    const upgrading = (entries: number): State => ({
      ...freshAccount(),
      databases: [{ uuid, name: "wallet-ledger" }],
      applied: { [uuid]: MIGRATIONS.slice(0, MIGRATIONS.indexOf("0018_plain_integer_ids.sql")) },
      entries: { [uuid]: entries },
      worker: { secrets: ["JWT_SECRET", "WEBHOOK_SECRET_KEY"], secretLengths: {} },
      queues: ["wallet-webhooks", "wallet-webhooks-dlq"],
      users: [
        {
          id: 1,
          username: "root",
          email: "root@example.com",
          passwordHash: "x",
          role: "administrator",
        },
      ],
    });
    const refused = await deploy(project(upgrading(2_000_000), withId(uuid)));
    expect(refused.status).toBe(1);
    expect(refused.commands).toEqual([
      "whoami --json",
      "d1 list --json",
      "queues info wallet-webhooks",
      "queues info wallet-webhooks-dlq",
      sql("applied migrations"),
      sql("count entries"),
    ]);
    expect(refused.state.applied[uuid]).not.toContain("0018_plain_integer_ids.sql");
    expect(refused.state.deployments).toEqual([]);
    expect(refused.output).toContain(
      "0018_plain_integer_ids.sql rewrites every entry: about 40 s for the database's 2,000,000 entries",
    );
    expect(refused.output).toContain("docs/deploying.md#upgrading-a-large-database");
    expect(refused.output).toContain("nothing was migrated or uploaded");

    const small = await deploy(project(upgrading(1_000_000), withId(uuid)));
    expect(small.status, small.output).toBe(0);
    expect(small.commands.slice(4, 7)).toEqual([
      sql("applied migrations"),
      sql("count entries"),
      "d1 migrations apply DB --remote",
    ]);
    expect(small.state.applied[uuid]).toEqual(MIGRATIONS);

    // An imported site's entries keep their WordPress post ids, which every kind of post shares:
    // 1,000,000 entries may reach id 5,000,000, and take the time of 1,000,000.
    const imported = await deploy(
      project({ ...upgrading(1_000_000), largestIds: { [uuid]: 5_000_000 } }, withId(uuid)),
    );
    expect(imported.status, imported.output).toBe(0);
    expect(imported.state.applied[uuid]).toEqual(MIGRATIONS);
  });

  it("deploying.md gives the rate each migration that rewrites every entry is estimated at, and where it passes 30 s", () => {
    const doc = readFileSync(path.join(ROOT, "docs/deploying.md"), "utf8");
    for (const [name, perMillion] of Object.entries(REWRITES_EVERY_ENTRY)) {
      expect(MIGRATIONS).toContain(name);
      const row = doc
        .split("\n")
        .find((line) => line.startsWith(`| \`${name.replace(".sql", "")}\``));
      const past = Math.floor((D1_QUERY_LIMIT_S / perMillion) * 10) / 10;
      expect(row, name).toContain(`, ${perMillion} s`);
      expect(row, name).toContain(`| ${past} million`);
    }
  });

  it("knows every migration that writes a row for each entry outside a trigger, so the deploy estimates it", () => {
    // A statement that copies, updates or derives from every row of the entries' tables: D1 gives
    // the whole migration 30 s, so each such migration needs its measured rate.
    const perEntry =
      /^(INSERT INTO `__new_(transactions|events|balance_timeline)`|UPDATE `(transactions|events|balance_timeline)`|INSERT INTO `\w+`[^;]*\bFROM `(transactions|events|balance_timeline)`)/s;
    // Reads only the user.deleted events, through the partial index events_type: 0.01 s a million
    // entries measured.
    const bounded = ["0023_deleted_user_ids.sql"];
    const found = MIGRATIONS.filter((name) =>
      readFileSync(path.join(ROOT, "drizzle", name), "utf8")
        .split("--> statement-breakpoint")
        .map((statement) => statement.replace(/^\s*(--[^\n]*\n\s*)*/, ""))
        .some((statement) => perEntry.test(statement)),
    );
    expect(found).toEqual([...Object.keys(REWRITES_EVERY_ENTRY), ...bounded].sort());
  });

  it("refuses when wrangler is not logged in, says to run npx wrangler login, and changes nothing", async () => {
    const dir = project({ ...freshAccount(), loggedIn: false });
    const run = await deploy(dir);
    expect(run.status).toBe(1);
    expect(run.commands).toEqual(["whoami --json"]);
    expect(run.output).toContain("Not logged in to Cloudflare. Run\n  npx wrangler login\n");
    expect(run.toml).toBe(SHIPPED_TOML);
  });

  it("refuses a login that reaches several accounts until CLOUDFLARE_ACCOUNT_ID names one", async () => {
    const accounts = [
      { id: "acc1", name: "Example Ltd" },
      { id: "acc2", name: "Side project" },
    ];
    const dir = project({ ...freshAccount(), accounts });
    const refused = await deploy(dir);
    expect(refused.status).toBe(1);
    expect(refused.commands).toEqual(["whoami --json"]);
    expect(refused.output).toContain("acc2  Side project");
    expect(refused.output).toContain("CLOUDFLARE_ACCOUNT_ID=<id> npm run deploy");
    const chosen = await deploy(dir, { CLOUDFLARE_ACCOUNT_ID: "acc2", ...ADMIN_ENV }, ADMIN_FLAGS);
    expect(chosen.status, chosen.output).toBe(0);
    expect(chosen.output).toContain("account Side project.");
  });

  it("refuses a database_id this account does not have, and creates nothing", async () => {
    const dir = project(freshAccount(), withId("0d1e0000-0000-4000-8000-0000000000ff"));
    const run = await deploy(dir);
    expect(run.status).toBe(1);
    expect(run.commands).toEqual(["whoami --json", "d1 list --json"]);
    expect(run.output).toContain("which this account has no database for");
    expect(run.state.databases).toEqual([]);
  });

  it("refuses a migrations_table other than wrangler's default, which the Worker reads", async () => {
    const toml = SHIPPED_TOML.replace(
      'migrations_dir = "drizzle"\n',
      'migrations_dir = "drizzle"\nmigrations_table = "custom_migrations"\n',
    );
    const run = await deploy(project(freshAccount(), toml));
    expect(run.status).toBe(1);
    expect(run.commands).toEqual([]);
    expect(run.output).toContain('migrations_table = "custom_migrations"');
  });

  it("refuses a migrations_dir that does not hold this code's migrations, before any wrangler command", async () => {
    const dirs: [string, string][] = [
      ['migrations_dir = "migrations"', "migrations"], // no such folder
      ["", "migrations"], // wrangler's default, which this project does not use
      ['migrations_dir = "tmp"', "tmp"], // a folder without them
    ];
    for (const [line, named] of dirs) {
      const toml = SHIPPED_TOML.replace('migrations_dir = "drizzle"', line);
      const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
      expect(run.status, run.output).toBe(1);
      expect(run.commands).toEqual([]);
      expect(run.output).toContain(`migrations from "${named}"`);
      expect(run.output).toContain('migrations_dir = "drizzle"');
      expect(run.output).not.toMatch(/^\s+at /m);
    }
  });

  it("refuses a Durable Object binding left out or naming the other class, before any wrangler command", async () => {
    const swapped = SHIPPED_TOML.replace(
      'name = "LOGIN_THROTTLE"\nclass_name = "LoginThrottle"',
      'name = "LOGIN_THROTTLE"\nclass_name = "HistoryGate"',
    );
    const dropped = SHIPPED_TOML.replace(
      '[[durable_objects.bindings]]\nname = "HISTORY_GATE"\nclass_name = "HistoryGate"\n',
      "",
    );
    expect(swapped).not.toBe(SHIPPED_TOML);
    expect(dropped).not.toBe(SHIPPED_TOML);
    for (const [toml, words] of [
      [swapped, 'LOGIN_THROTTLE names class_name = "HistoryGate"'],
      [dropped, "no HISTORY_GATE"],
    ] as const) {
      const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
      expect(run.status, run.output).toBe(1);
      expect(run.commands).toEqual([]);
      expect(run.output).toContain(words);
    }
  });

  it("refuses the vars only npm run dev may set, in any case, before any wrangler command", async () => {
    const cases: [string, string, string][] = [
      ['MAIL_TRANSPORT = ""', 'MAIL_TRANSPORT = "outbox"', 'MAIL_TRANSPORT = "outbox"'],
      ['MAIL_TRANSPORT = ""', 'MAIL_TRANSPORT = " Outbox "', 'MAIL_TRANSPORT = "outbox"'],
      ['WEBHOOK_ALLOW_LOCAL = "false"', 'WEBHOOK_ALLOW_LOCAL = "TRUE"', "WEBHOOK_ALLOW_LOCAL"],
      // npm run dev's own SITE_URL, copied into wrangler.toml: every link and guid would name it.
      ['SITE_URL = ""', 'SITE_URL = "http://127.0.0.1:8787"', 'SITE_URL = "http://127.0.0.1:8787"'],
      ['SITE_URL = ""', 'SITE_URL = " HTTP://LOCALHOST:8788/ "', "SITE_URL"],
    ];
    for (const [shipped, set, words] of cases) {
      const toml = SHIPPED_TOML.replace(shipped, set);
      expect(toml).not.toBe(SHIPPED_TOML);
      const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
      expect(run.status, run.output).toBe(1);
      expect(run.commands).toEqual([]);
      expect(run.output).toContain(words);
      expect(run.output).toContain("nothing was created");
    }
  });

  // Cloudflare refuses these at the upload, and the Worker answers 503 for those [vars]: after the
  // database, the queues, the migrations and the administrator were made, without the check.
  it.each([
    [
      "a compatibility_date that is no date",
      editedToml(/^compatibility_date = .*$/m, 'compatibility_date = "2026-13-45"'),
      'compatibility_date "2026-13-45" is no date',
    ],
    [
      "a compatibility_date in the future",
      editedToml(/^compatibility_date = .*$/m, 'compatibility_date = "2099-01-01"'),
      'compatibility_date "2099-01-01" is in the future',
    ],
    [
      "a [[ratelimits]] limit of 0",
      editedToml(/simple = \{ limit = \d+,/, "simple = { limit = 0,"),
      "[[ratelimits]] MONEY_RATE_LIMIT must count a whole limit of at least 1",
    ],
    [
      "a main that names no file",
      editedToml(/^main = .*$/m, 'main = "src/no-such-entry.ts"'),
      'main names "src/no-such-entry.ts", which does not exist',
    ],
    [
      "a Durable Object class made without SQLite storage",
      editedToml('new_sqlite_classes = ["LoginThrottle"]', 'new_classes = ["LoginThrottle"]'),
      'no [[migrations]] entry lists "LoginThrottle" in new_sqlite_classes',
    ],
    [
      "JWT_ISSUER empty",
      editedToml('JWT_ISSUER = "wallet-ledger"', 'JWT_ISSUER = ""'),
      "JWT_ISSUER is unset",
    ],
    [
      "SITE_TIMEZONE no zone",
      editedToml('SITE_TIMEZONE = "UTC"', 'SITE_TIMEZONE = "Mars/Olympus_Mons"'),
      "SITE_TIMEZONE is not a time zone the runtime knows",
    ],
    [
      "SITE_URL without a scheme",
      editedToml('SITE_URL = ""', 'SITE_URL = "wallet.example.com"'),
      "SITE_URL is not an absolute http(s) URL",
    ],
    [
      "MAIL_TRANSPORT cloudflare without a sender or the EMAIL binding",
      editedToml('MAIL_TRANSPORT = ""', 'MAIL_TRANSPORT = "cloudflare"'),
      'MAIL_TRANSPORT = "cloudflare", which needs MAIL_FROM, the sender\'s address alone',
    ],
    [
      "MAIL_TRANSPORT cloudflare with a sender but without the EMAIL binding",
      editedToml(
        'MAIL_TRANSPORT = ""\nMAIL_FROM = ""',
        'MAIL_TRANSPORT = "cloudflare"\nMAIL_FROM = "wallet@example.com"',
      ),
      'which needs the EMAIL binding: uncomment [[send_email]] name = "EMAIL"',
    ],
    [
      "MAIL_TRANSPORT naming no transport",
      editedToml('MAIL_TRANSPORT = ""', 'MAIL_TRANSPORT = "smtp"'),
      'MAIL_TRANSPORT = "smtp", which names no transport',
    ],
    [
      "a var without quotes",
      editedToml('WEBHOOK_RETRY_BASE_S = "60"', "WEBHOOK_RETRY_BASE_S = 60"),
      "WEBHOOK_RETRY_BASE_S is not text",
    ],
    [
      "a secret written into [vars], where the repository would hold it",
      editedToml(
        'JWT_ISSUER = "wallet-ledger"\n',
        `JWT_ISSUER = "wallet-ledger"\nJWT_SECRET = "${"k".repeat(64)}"\n`,
      ),
      "sets JWT_SECRET in [vars]",
    ],
  ])("refuses %s before any wrangler command", async (_what, toml, words) => {
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(1);
    expect(run.commands).toEqual([]);
    expect(run.output).toContain(words);
    expect(run.output).toContain("nothing was created");
    expect(run.output).not.toMatch(/^\s+at /m);
  });

  it("deploys mail through Cloudflare once MAIL_FROM and the EMAIL binding are both there", async () => {
    const toml = editedToml(
      'MAIL_TRANSPORT = ""\nMAIL_FROM = ""',
      'MAIL_TRANSPORT = "cloudflare"\nMAIL_FROM = "wallet@example.com"',
    ).replace(
      '# [[send_email]]\n# name = "EMAIL"\n# allowed_sender_addresses = ["wallet@example.com"]',
      '[[send_email]]\nname = "EMAIL"\nallowed_sender_addresses = ["wallet@example.com"]',
    );
    expect(toml).toContain('\n[[send_email]]\nname = "EMAIL"');
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    expect(run.commands.at(-1)).toBe("deploy --minify --secrets-file <file>");
  });

  it("says to whom it is signed in when the login lists no account (an API token), without undefined", async () => {
    const state = { ...freshAccount(), accounts: [], email: undefined as unknown as string };
    const run = await deploy(project(state), {}, ["--prepare"]);
    expect(run.output).toContain("Signed in as an API token.\n");
    expect(run.output).not.toContain("undefined");
  });

  it("refuses a CLOUDFLARE_ACCOUNT_ID this login does not reach, naming those it does", async () => {
    const run = await deploy(
      project(freshAccount()),
      { CLOUDFLARE_ACCOUNT_ID: "acc9", ...ADMIN_ENV },
      ADMIN_FLAGS,
    );
    expect(run.status, run.output).toBe(1);
    expect(run.commands).toEqual(["whoami --json"]);
    expect(run.output).toContain(
      "CLOUDFLARE_ACCOUNT_ID names account acc9, which this login does not reach",
    );
    expect(run.output).toContain("acc1  Example Ltd");
    expect(run.output).not.toContain("account Example Ltd.");
  });

  it("--help prints the usage and exits 0, touching nothing", async () => {
    const run = await deploy(project(freshAccount()), {}, ["--help"]);
    expect(run.status, run.output).toBe(0);
    expect(run.commands).toEqual([]);
    expect(run.output).toContain("usage: npm run deploy");
  });

  it("refuses an option it does not know, --dry-run among them, naming npm run build:check", async () => {
    const run = await deploy(project(freshAccount()), {}, ["--dry-run"]);
    expect(run.status).toBe(1);
    expect(run.commands).toEqual([]);
    expect(run.output).toContain("Unknown option '--dry-run'");
    expect(run.output).toContain("npm run build:check");
  });

  it("refuses a wrangler.toml that is no TOML, naming the line, before any wrangler command", async () => {
    const run = await deploy(
      project(freshAccount(), `${SHIPPED_TOML}\noops =\n`),
      ADMIN_ENV,
      ADMIN_FLAGS,
    );
    expect(run.status).toBe(1);
    expect(run.commands).toEqual([]);
    expect(run.output).toMatch(/wrangler\.toml:\d+:\d+: /);
    expect(run.output).not.toMatch(/^\s+at /m);
  });

  it("says how to get a workers.dev subdomain when the account has none", async () => {
    const run = await deploy(
      project({ ...freshAccount(), subdomain: null }),
      ADMIN_ENV,
      ADMIN_FLAGS,
    );
    expect(run.status).toBe(1);
    expect(run.commands.at(-1)).toBe("deploy --minify --secrets-file <file>");
    expect(run.output).toContain("https://dash.cloudflare.com/acc1/workers/onboarding");
    expect(run.output).toContain("The account has no workers.dev subdomain yet");
    expect(run.output).not.toContain("Console:");
  });

  it("without a terminal and without the administrator's password stops before the upload with one line, then a run with it goes on from there", async () => {
    const dir = project(freshAccount());
    const refused = await deploy(dir, {}, ADMIN_FLAGS);
    expect(refused.status).toBe(1);
    expect(refused.commands.at(-1)).toBe(sql("count administrators"));
    expect(refused.state.deployments).toEqual([]);
    expect(refused.state.worker).toBeNull();
    expect(refused.output).toContain(
      "\nNo administrator able to sign in yet: pass --admin-username NAME --admin-email ADDRESS (npm run deploy -- …) " +
        "and the password in WALLET_ADMIN_PASSWORD; nothing was uploaded.\n",
    );
    // The database, its id, the queues and the migrations stay; the next run only adds the rest.
    writeFileSync(path.join(dir, "state.json"), JSON.stringify({ ...refused.state, commands: [] }));
    const resumed = await deploy(dir, ADMIN_ENV, ADMIN_FLAGS);
    expect(resumed.status, resumed.output).toBe(0);
    expect(resumed.commands).toEqual([
      "whoami --json",
      "d1 list --json",
      "queues info wallet-webhooks",
      "queues info wallet-webhooks-dlq",
      sql("applied migrations"),
      "secret list --format json",
      sql("count administrators"),
      sql("insert administrator"),
      "deploy --minify --secrets-file <file>",
    ]);
  });

  it("--prepare migrates a new database and stops; after an import the next run asks nothing and uploads", async () => {
    const dir = project(freshAccount());
    const prepared = await deploy(dir, {}, ["--prepare"]);
    expect(prepared.status, prepared.output).toBe(0);
    expect(prepared.commands).toEqual(FRESH_SETUP);
    const [db] = prepared.state.databases;
    expect(prepared.toml).toBe(withId(db!.uuid));
    expect(prepared.state.applied[db!.uuid]).toEqual(MIGRATIONS);
    expect(prepared.state.worker).toBeNull();
    expect(prepared.output).toContain(
      "Prepared: the database is migrated; nothing was uploaded. Import the site now",
    );
    expect(prepared.output).not.toMatch(/Secret |administrator/i);
    // The site's import brings its administrators: deploy then creates none and asks nothing.
    const imported = {
      ...prepared.state,
      commands: [],
      users: [
        {
          id: 1,
          username: "admin",
          email: "admin@site.example",
          passwordHash: "$P$B",
          role: "administrator",
        },
      ],
    };
    writeFileSync(path.join(dir, "state.json"), JSON.stringify(imported));
    const deployed = await deploy(dir);
    expect(deployed.status, deployed.output).toBe(0);
    expect(deployed.commands.slice(-3)).toEqual([
      "secret list --format json",
      sql("count administrators"),
      "deploy --minify --secrets-file <file>",
    ]);
    expect(deployed.state.users).toEqual(imported.users);
    // An import whose only administrator the network marked as spam (its hash behind the mark, so
    // it cannot sign in) brings none for the console: deploy creates one.
    const spamOnly = { ...imported, users: [{ ...imported.users[0]!, passwordHash: "!$P$B" }] };
    writeFileSync(path.join(dir, "state.json"), JSON.stringify(spamOnly));
    const created = await deploy(dir, ADMIN_ENV, ADMIN_FLAGS);
    expect(created.status, created.output).toBe(0);
    expect(created.commands.slice(-4)).toEqual([
      "secret list --format json",
      sql("count administrators"),
      sql("insert administrator"),
      "deploy --minify --secrets-file <file>",
    ]);
    expect(created.state.users?.map((u: { username: string }) => u.username)).toEqual([
      "admin",
      "alice",
    ]);
    expect((await deploy(dir, {}, ["--prepare", ...ADMIN_FLAGS])).output).toContain(
      "--prepare stops before the administrator is created: leave out its details.",
    );
    // A password CI keeps in its environment is no reason to stop: --prepare uses none.
    const again = await deploy(dir, { WALLET_ADMIN_PASSWORD: "short" }, ["--prepare"]);
    expect(again.status, again.output).toBe(0);
  });

  it("refuses administrator details the service would refuse before running any wrangler command", async () => {
    const dir = project(freshAccount());
    const run = await deploy(dir, { WALLET_ADMIN_PASSWORD: "short" }, ADMIN_FLAGS);
    expect(run.status).toBe(1);
    expect(run.commands).toEqual([]);
    expect(run.output).toContain(
      "The first administrator's details: password must have at least 6 characters.",
    );
    expect(run.output).not.toContain("short");
    const badEmail = await deploy(dir, ADMIN_ENV, [
      "--admin-username",
      "alice",
      "--admin-email",
      "alice",
    ]);
    expect(badEmail.commands).toEqual([]);
    expect(badEmail.output).toContain("The first administrator's details: e-mail is not valid.");
    const password = await deploy(dir, {}, ["--admin-password", PASSWORD]);
    expect(password.status).toBe(1);
    expect(password.commands).toEqual([]);
    expect(password.output).toContain("Unknown option '--admin-password'");
  });

  it("hands the administrator's insert to wrangler off its command line, which any user can list", async () => {
    const run = await deploy(project(freshAccount()), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    const hash = run.state.users![0]!.passwordHash;
    expect(hash).toMatch(/^pbkdf2/);
    // wrangler got the statement (the stub saw it in its argv) ...
    expect(run.state.commands.some((line) => line.includes(hash))).toBe(true);
    // ... but no process was started with it, nor with the password.
    expect(run.state.commandLines).toHaveLength(run.state.commands.length);
    for (const line of run.state.commandLines!) {
      expect(line).not.toContain(hash);
      expect(line).not.toContain(PASSWORD);
    }
  });

  it("never prints the administrator's password hash when creating it fails", async () => {
    const run = await deploy(
      project({ ...freshAccount(), failInsert: true }),
      ADMIN_ENV,
      ADMIN_FLAGS,
    );
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("Creating the administrator failed; nothing was uploaded.");
    expect(run.output).toContain("<the password's hash>");
    expect(run.output).not.toMatch(/pbkdf2/);
    expect(run.output).not.toContain(PASSWORD);
    expect(run.commands.at(-1)).toBe(sql("insert administrator"));
  });

  it("stops before the upload when the administrator's username or e-mail names an existing user", async () => {
    const state: State = {
      ...freshAccount(),
      users: [
        { id: 1, username: "alice", email: "a@example.com", passwordHash: "x", role: "subscriber" },
      ],
    };
    const run = await deploy(project(state), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status).toBe(1);
    expect(run.commands.at(-1)).toBe(sql("insert administrator"));
    expect(run.state.deployments).toEqual([]);
    expect(run.output).toContain('"alice" or "alice@example.com" names an existing user');
  });

  it("npm run admin:create exits 1 when the username or e-mail names an existing user, 0 once created", async () => {
    const state: State = {
      ...freshAccount(),
      databases: [{ uuid: "db-1", name: "wallet-ledger" }],
      users: [
        { id: 1, username: "alice", email: "a@example.com", passwordHash: "x", role: "subscriber" },
      ],
    };
    const dir = project(state, withId("db-1"));
    const adminCreate = async (username: string, email: string) => {
      const { CLOUDFLARE_ACCOUNT_ID: _, WALLET_ADMIN_PASSWORD: __, ...inherited } = offlineEnv();
      const result = await runScriptAsync(
        "scripts/create-admin.ts",
        ["--remote", "--username", username, "--email", email],
        {
          cwd: dir,
          env: {
            ...inherited,
            ...ADMIN_ENV,
            WRANGLER_BIN: path.join(ROOT, "test/node/stub-wrangler.mjs"),
            STUB_WRANGLER_STATE: path.join(dir, "state.json"),
            TMPDIR: path.join(dir, "tmp"),
          },
        },
      );
      return { status: result.status, output: result.stdout + result.stderr };
    };
    const taken = await adminCreate("alice", "alice@example.com");
    expect(taken.status, taken.output).toBe(1);
    expect(taken.output).toContain("names an existing user");
    expect(taken.output).toContain("nothing changed");
    const created = await adminCreate("bobby", "bobby@example.com");
    expect(created.status, created.output).toBe(0);
    expect(created.output).toMatch(/Administrator bobby created \(id \d+\)\./);
  });

  it("npm run admin:create -- --help prints its usage and exits 0, running nothing", async () => {
    const { WALLET_ADMIN_PASSWORD: _, ...env } = offlineEnv();
    const run = await runScriptAsync("scripts/create-admin.ts", ["--help"], {
      env: { ...env, WRANGLER_BIN: "/nonexistent/wrangler-must-not-run" },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("usage: npm run admin:create");
  });

  it("edits only the database_id value in a wrangler.toml laid out by hand, comments and all", async () => {
    const toml = SHIPPED_TOML.replace(
      'binding = "DB"\ndatabase_name = "wallet-ledger"\n',
      '  binding   = "DB"   # the Worker\'s name for it\n' +
        "  database_name = 'wallet-ledger' # found or created by name\n" +
        '  database_id = ""   # npm run deploy writes the id here\n',
    );
    expect(toml).not.toBe(SHIPPED_TOML);
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    const [db] = run.state.databases;
    expect(run.toml).toBe(toml.replace('database_id = ""', `database_id = "${db!.uuid}"`));
  });

  it("names the custom domain wrangler deployed to, not workers.dev", async () => {
    const toml = SHIPPED_TOML.replace(
      'compatibility_flags = ["nodejs_compat"]\n',
      'compatibility_flags = ["nodejs_compat"]\nroutes = [{ pattern = "wallet.example.com", custom_domain = true }]\n',
    );
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain("API:      https://wallet.example.com/wp-json/wallet/v1");
    expect(run.output).toContain("Console:  https://wallet.example.com/wallet-admin/");
  });

  /** The shipped wrangler.toml with a top-level `routes` line (above [build], as the docs say). */
  const withRoutes = (routes: string) =>
    SHIPPED_TOML.replace(
      'compatibility_flags = ["nodejs_compat"]\n',
      `compatibility_flags = ["nodejs_compat"]\nroutes = ${routes}\n`,
    );

  it("after a deploy to a zone route (workers.dev off) names the route and its host's URLs, and exits 0", async () => {
    const toml = withRoutes('[{ pattern = "wallet.example.com/*", zone_name = "example.com" }]');
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    // wrangler's own line for it, under "Deployed wallet-ledger triggers".
    expect(run.output).toContain("  wallet.example.com/* (zone name: example.com)\n");
    expect(run.output).not.toContain("workers.dev");
    expect(run.output).toContain("Route:    wallet.example.com/* (zone name: example.com)");
    expect(run.output).toContain("API:      https://wallet.example.com/wp-json/wallet/v1");
    expect(run.output).toContain("Console:  https://wallet.example.com/wallet-admin/");
    expect(run.output).toContain("Health:   https://wallet.example.com/health");
    expect(run.output).not.toContain("named no");
  });

  it("after a deploy to routes that name no one address (a wildcard host, a path) says so and exits 0", async () => {
    const toml = withRoutes(
      '["*.example.com/*", { pattern = "example.com/wallet/*", zone_id = "z1" }]',
    );
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain("Route:    *.example.com/*\n");
    expect(run.output).toContain("Route:    example.com/wallet/* (zone id: z1)\n");
    expect(run.output).toContain("No URLs to print:");
    expect(run.output).not.toContain("API:");
    expect(run.output).not.toContain("https://");
  });

  it("exits 1 when wrangler deployed the code to no address at all (workers.dev off, no route)", async () => {
    const toml = withRoutes("[]").replace("routes = []\n", "workers_dev = false\n");
    const run = await deploy(project(freshAccount(), toml), ADMIN_ENV, ADMIN_FLAGS);
    expect(run.status, run.output).toBe(1);
    expect(run.commands.at(-1)).toBe("deploy --minify --secrets-file <file>");
    expect(run.output).toContain("wrangler named no workers.dev URL, custom domain or route");
    expect(run.output).not.toContain("Console:");
  });
});

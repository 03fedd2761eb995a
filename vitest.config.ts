import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import type { Plugin } from "vite";
import { configDefaults, defineConfig } from "vitest/config";
import { topLevelVars } from "./scripts/lib/wrangler-toml.ts";
import { copyReferenceAssets } from "./scripts/reference-assets.ts";

/**
 * The service's test files that need a fresh start, and why. They run isolated (a workerd and an
 * empty database each, as every file did before); the rest share their workers.
 */
const FRESH_START = [
  // The WordPress importer writes the site's own user ids (1, 2, 3...) and wallet ids, which the
  // database must not hold yet.
  "test/batch-reversal-imported-negative.test.ts",
  "test/compat-extra-places.test.ts",
  "test/import-conflicts.test.ts",
  "test/import-deleted-users.test.ts",
  "test/import-deleted-wallets.test.ts",
  "test/import-edges.test.ts",
  "test/import-last-administrator.test.ts",
  "test/import-export-formats.test.ts",
  "test/import-future-dates.test.ts",
  "test/import-login-collisions.test.ts",
  "test/import-meta-data.test.ts",
  "test/import-places.test.ts",
  "test/import-real-site.test.ts",
  "test/import-resume.test.ts",
  "test/import-site-balances.test.ts",
  "test/import-slugs.test.ts",
  "test/import-wordpress.test.ts",
  "test/import-withdrawals.test.ts",
  "test/negative-balances.test.ts",
  "test/twin-dialects.test.ts",
  // Captured plugin answers replayed as captured: wallets usd and ngn, the captures' usernames and
  // e-mails, and users 1 and 2 (compat-identity: usernames that read as those ids).
  "test/compat-credits.test.ts",
  "test/compat-identity.test.ts",
  "test/compat-replay.test.ts",
  "test/compat-transactions.test.ts",
  "test/compat-users-create.test.ts",
  // How many administrators the site has: none but the file's own.
  "test/compat-last-administrator.test.ts",
  // What happens once per isolate (src/http/log-once.ts): the first request's notice, and no other
  // file's request before it. configuration also migrates BEHIND_DB.
  "test/client-address.test.ts",
  "test/configuration.test.ts",
  "test/site-url.test.ts",
  // A site's every webhook endpoint: none but the file's own (and webhook-nudge: the isolate's list
  // of endpoints not read yet).
  "test/platform-limits.test.ts",
  "test/webhook-nudge.test.ts",
  // npm run dev's seed: what it adds to an empty database and what it leaves alone.
  "test/dev-seed.test.ts",
  // Its entries are dated from 2027 on (the model's own clock), so in a shared database they would
  // head every other file's newest-first list of the whole site.
  "test/ledger-model.test.ts",
  // Sets aside the trigger that writes balance points, which would leave other files' entries
  // without theirs while it is away.
  "test/timeline-guard.test.ts",
  // Counts every table before and after each of its thousands of requests (tableCounts): over
  // every earlier file's rows in a shared database that took its sweeps past 30 s.
  "test/request-shapes.test.ts",
  // Checks the whole ledger and counts every table after each of its 400 random pairs, which over
  // every earlier file's rows in a shared database costs several times its own work.
  "test/service-interleavings.test.ts",
  // Sets the events' triggers as they were before 0030 beside them while it writes.
  "test/function-arguments.test.ts",
  // Take the planner's statistics (PRAGMA optimize) to measure with them: in a shared database the
  // files after them would run with statistics too, their plans depending on the files' order.
  "test/d1-one-user.test.ts",
  "test/d1-scans.test.ts",
];

/** The reliability files that may run beside one another (the project "reliability" below). */
const RELIABILITY_BESIDE = [
  "test/reliability/authz.test.ts",
  "test/reliability/crash.test.ts",
  "test/reliability/throttle.test.ts",
  "test/reliability/webhooks.test.ts",
];

/**
 * standardwebhooks' dist/*.js each name a source map (`//# sourceMappingURL=index.js.map`) whose
 * sources, ../src/*.ts, the package does not ship. Vite reads that map when it transforms the
 * module for the Workers tests and warns that it "points to missing source files" (the first run
 * only: vitest caches the transformed module in node_modules/.vitest-cache). The map could only
 * send a stack trace to a file that is not there, so the module is loaded without it, and a trace
 * names the dist file itself.
 */
const withoutUnshippedSourceMaps: Plugin = {
  name: "wallet:without-unshipped-source-maps",
  enforce: "pre",
  async load(id) {
    const file = id.split("?")[0] ?? id;
    if (!file.includes("/node_modules/standardwebhooks/dist/") || !file.endsWith(".js")) return;
    const code = await readFile(file, "utf8");
    return { code: code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"), map: null };
  },
};

export default defineConfig(async () => {
  // The Workers pool reads wrangler.toml again for each test file and, where `npm run dev` has left
  // a .dev.vars, logs "Using secrets defined in .dev.vars" every time (the tests set each binding
  // themselves). Wrangler's log level is raised in this process only: the tools the Node tests run
  // keep wrangler's usual output, which they read (scripts/lib/wrangler.ts offlineEnv).
  process.env.WRANGLER_LOG ??= "warn";
  // wrangler.toml's [assets] folder, which wrangler's [build] command fills for dev and deploy.
  copyReferenceAssets();
  // The very migrations wrangler applies, read from the one drizzle/ folder.
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "drizzle"));
  const SHIPPED_VARS = topLevelVars(
    readFileSync(path.join(import.meta.dirname, "wrangler.toml"), "utf8"),
  );
  const workersPool = (configPath: string) => [
    withoutUnshippedSourceMaps,
    cloudflareTest({
      wrangler: { configPath },
      // workerd's own warnings are not printed (a green run is quiet): tests send header values
      // outside ASCII on purpose, which it warns of. Set true to see them.
      verbose: false,
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          // Whatever a developer's .dev.vars holds for `npm run dev` must not change what the
          // tests see: every var as wrangler.toml ships it, the secrets set here, and a test sets
          // what else it needs.
          ...SHIPPED_VARS,
          // Test-only values; deployed secrets come from `wrangler secret put`.
          JWT_SECRET: "test-only-jwt-secret-of-32-characters",
          WEBHOOK_SECRET_KEY: "test-only-webhook-secret-key-of-32-chars",
          TRANSACTIONS_SECURITY_CODE: "",
          SITE_URL: "https://wallet.example.test",
          WEBHOOK_ALLOW_LOCAL: "true",
        },
        // Databases no test migrates at setup: for a deployment whose migrations were not applied,
        // and for the table rebuilds, applied step by step to a database in use.
        d1Databases: { EMPTY_DB: "empty", BEHIND_DB: "behind", REBUILT_DB: "rebuilt" },
        // A strict limiter the rate-limit tests put in MONEY_RATE_LIMIT's place (wrangler.toml's is
        // generous, so no other test meets it). Its own namespace, so its counts are its own.
        ratelimits: { TEST_RATE_LIMIT: { namespace_id: "1002", simple: { limit: 3, period: 60 } } },
      },
    }),
  ];
  // What the two projects of the service's tests share.
  const workersTest = {
    setupFiles: ["./test/apply-migrations.ts", "./test/closed-port.ts", "./test/held-logs.ts"],
    // Two files run at once (maxWorkers): a test of hundreds of concurrent requests takes 5 s,
    // vitest's default limit, when the machine is busy with other work as well.
    testTimeout: 30_000,
    // A spy a test leaves (a failing one never reaches its mockRestore) would go on into the next
    // file of the worker: each test starts with the real functions.
    restoreMocks: true,
  };
  return {
    test: {
      // Logs (each request logs one line) are shown for failing tests only. The reporter reads this
      // from the root config, not from a project's.
      silent: "passed-only" as const,
      // A file at a time per core, not vitest's default of one fewer than the cores (a single
      // worker on 2 cores): a file spends much of its time waiting on processes it starts (workerd,
      // wrangler), so a second file overlaps it.
      maxWorkers: "100%",
      // Tests listed by name in the output: those over 5 s, the few worth a look (over a second
      // lists hundreds on a 2-core machine); `--reporter=json` has every test's time.
      slowTestThreshold: 5000,
      projects: [
        {
          // The service, inside the Workers runtime. The files share their workers (isolate: false):
          // each worker (maxWorkers of them) starts workerd once and runs file after file in it, on
          // one D1 database and one set of module state, instead of a workerd per file (about a
          // second each). So a test here makes its own users and wallets, reads ids from answers
          // and counts by difference, whatever files ran before it; what needs a database or an
          // isolate of its own is listed in FRESH_START and runs in the next project.
          plugins: workersPool("./wrangler.toml"),
          test: {
            name: "workers",
            isolate: false,
            ...workersTest,
            setupFiles: [...workersTest.setupFiles, "./test/no-statistics.ts"],
            include: ["test/**/*.test.ts"],
            exclude: [
              ...configDefaults.exclude,
              "test/node/**",
              "test/browser/**",
              "test/do-writer.test.ts",
              "test/reliability/**",
              "test/clients/**",
              ...FRESH_START,
            ],
          },
        },
        {
          // The files of FRESH_START, each in a workerd of its own with an empty database.
          plugins: workersPool("./wrangler.toml"),
          test: { name: "workers-isolated", isolate: true, ...workersTest, include: FRESH_START },
        },
        {
          // The sharding prototype (bench/do-writer/, docs/scaling.md): the app with its credits in a
          // Durable Object per user, whose class only that worker exports.
          plugins: workersPool("./bench/do-writer/wrangler.toml"),
          test: {
            name: "do-writer",
            isolate: true,
            setupFiles: [
              "./test/apply-migrations.ts",
              "./test/closed-port.ts",
              "./test/held-logs.ts",
            ],
            testTimeout: 30_000,
            include: ["test/do-writer.test.ts"],
          },
        },
        {
          // Command-line tools that drive wrangler itself, in Node (the tools run under tsx).
          test: {
            name: "node",
            environment: "node",
            // A process per file: its start-up is nothing beside the wrangler processes it runs.
            isolate: true,
            include: ["test/node/**/*.test.ts"],
            setupFiles: ["./test/node/shared-bundles.ts"],
            testTimeout: 120_000,
            // Node's on-disk code cache for the processes the tests start (they inherit the
            // variable): each wrangler call compiled its 15 MB cli.js anew, 0.3-0.5 s of about 3 s.
            env: {
              NODE_COMPILE_CACHE: path.join(
                import.meta.dirname,
                "node_modules/.cache/node-compile",
              ),
            },
          },
        },
        // The reliability suite over HTTP against a real `wrangler dev` (npm run test:reliability;
        // not part of npm test), in two projects run one after the other (sequence.groupOrder). One
        // server for every section, started by the global setup (once for both).
        {
          // First, two files at a time: those that measure no time and write nothing another reads
          // while they run. The webhooks file mostly waits (a lease the SIGKILL leaves runs out), so
          // the others run beside it. Only authz uses the shared server here: its refusals compare
          // table counts, which another file's writes there would move.
          test: {
            name: "reliability",
            environment: "node",
            setupFiles: ["./test/node/shared-bundles.ts"],
            include: RELIABILITY_BESIDE,
            globalSetup: ["./test/reliability/global-setup.ts"],
            sequence: { groupOrder: 1 },
            maxWorkers: 2,
            testTimeout: 300_000,
            hookTimeout: 120_000,
          },
        },
        {
          // Then one file at a time, on a quiet machine: the timing checks, the loads (concurrency,
          // overload) and the hostile cases, whose latency figures a neighbour would skew.
          test: {
            name: "reliability-quiet",
            environment: "node",
            setupFiles: ["./test/node/shared-bundles.ts"],
            include: ["test/reliability/**/*.test.ts"],
            exclude: [...configDefaults.exclude, ...RELIABILITY_BESIDE],
            globalSetup: ["./test/reliability/global-setup.ts"],
            sequence: { groupOrder: 2 },
            fileParallelism: false,
            testTimeout: 300_000,
            hookTimeout: 120_000,
          },
        },
        {
          // The TypeScript and PHP clients against a real `wrangler dev` (npm run test:clients; not
          // part of npm test): each file starts its own server.
          test: {
            name: "clients",
            environment: "node",
            include: ["test/clients/**/*.test.ts"],
            // One file at a time: two servers starting at once collide (a port, a generated
            // config file).
            fileParallelism: false,
            testTimeout: 60_000,
            hookTimeout: 120_000,
          },
        },
        {
          // The operator console in Debian's chromium (npm run test:browser; not part of npm test).
          test: {
            name: "browser",
            environment: "node",
            include: ["test/browser/**/*.test.ts"],
            // The files run in one process, which loads playwright and the server's tools once
            // (each file still starts and stops its own server and chromium).
            isolate: false,
            // One file at a time, each with its server and chromium, as for the clients: two at a
            // time took as long in CI (107 s against 109 s), each file twice its time, the cores
            // full.
            fileParallelism: false,
            testTimeout: 180_000,
          },
        },
      ],
    },
  };
});

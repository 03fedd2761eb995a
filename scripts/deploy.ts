// `npm run deploy`: after `npx wrangler login`, one command from a fresh Cloudflare account to a
// working API and console, and the same command for every deploy after it (docs/deploying.md).
// The D1 database is found or created here and its id written into wrangler.toml, because
// wrangler's own provisioning creates it only while uploading the code, and `d1 migrations apply
// --remote` finds no database for a binding without an id before that: the migrations must
// reach the database first. wrangler's answers are read in their machine-readable forms (--json,
// the output file) wherever it has one; where it has none, the comment at that step says what
// stands in.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PASSWORD_USABLE_SQL } from "../src/db/schema";
import {
  configuredSiteUrl,
  flagOn,
  isLocalAddress,
  JWT_SECRET_MIN_LENGTH,
  mailTransportName,
  varText,
} from "../src/settings";
import { accountProblem, ensureAdmin } from "./lib/admin";
import { CONFIG, configProblem, varsProblem } from "./lib/config-check";
import { ADMIN_NEEDED, type AdminGiven, adminAccount } from "./lib/deploy-admin";
import { stop as end, runMain } from "./lib/exit";
import { D1_QUERY_LIMIT_S, REWRITES_EVERY_ENTRY } from "./lib/large-migrations";
import { readOutputFile, runWrangler, streamWrangler, wranglerSql } from "./lib/wrangler";
import {
  queueNames,
  readD1,
  topLevelValue,
  topLevelVars,
  withDatabaseId,
} from "./lib/wrangler-toml";

const BINDING = "DB";

/** A refusal, a blank line below wrangler's output. */
function stop(message: string): never {
  end(`\n${message}`);
}

await runMain(async () => {
  // 0. The first administrator's details, when given (CI): checked before anything changes. The
  // password leaves the environment here, so no wrangler process started below inherits it.
  // `--prepare` stops once the database is migrated, before the administrator and the upload: a
  // WordPress site is imported there first (docs/migrating.md), its administrators with it.
  const usage =
    "usage: npm run deploy [-- --admin-username NAME --admin-email ADDRESS | --prepare]\n" +
    "(a dry run, which bundles the Worker and uploads nothing, is npm run build:check; docs/deploying.md)";
  let flags: {
    "admin-username"?: string;
    "admin-email"?: string;
    prepare?: boolean;
    help?: boolean;
  };
  try {
    flags = parseArgs({
      options: {
        "admin-username": { type: "string" },
        "admin-email": { type: "string" },
        prepare: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    stop(`${(error as Error).message}\n${usage}`);
  }
  if (flags.help) {
    console.log(usage);
    return;
  }
  if (flags.prepare && (flags["admin-username"] || flags["admin-email"]))
    stop("--prepare stops before the administrator is created: leave out its details.");
  const admin: AdminGiven = {
    username: flags["admin-username"],
    email: flags["admin-email"],
    password: process.env.WALLET_ADMIN_PASSWORD || undefined,
  };
  delete process.env.WALLET_ADMIN_PASSWORD;
  const adminProblem = flags.prepare ? undefined : accountProblem(admin);
  if (adminProblem) stop(`The first administrator's details: ${adminProblem}.`);

  /** Runs a wrangler command that must succeed; stops with its output otherwise. */
  function run(args: string[]) {
    const result = runWrangler(args);
    if (result.status !== 0)
      stop(`wrangler ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
    return result.stdout;
  }

  /** wrangler's JSON answer, after any line a warning put before it. */
  const parse = <T>(out: string): T => JSON.parse(out.slice(out.search(/[[{]/)));

  // 0b. wrangler.toml, read before any wrangler command: a mistake in it stops here, with its fix,
  // and nothing is created for it.
  if (!existsSync(CONFIG)) stop(`No ${CONFIG} here: run npm run deploy in the project's folder.`);
  let toml = readFileSync(CONFIG, "utf8");
  const problem = configProblem(toml) ?? varsProblem(toml);
  if (problem) stop(`${problem}\nCorrect it, then run npm run deploy again; nothing was created.`);
  // configProblem found the binding and its database_name.
  const wanted = readD1(toml, BINDING) as { name: string } & NonNullable<ReturnType<typeof readD1>>;

  // Three vars are for `npm run dev` alone (docs/configuration.md#local-development): the dev outbox
  // is a transport only for requests to this machine, so a deployment with it sends no mail; loopback
  // webhook URLs are this machine's, not a deployment's.
  const vars = topLevelVars(toml);
  if (mailTransportName(vars) === "outbox")
    stop(
      `${CONFIG} sets MAIL_TRANSPORT = "outbox", the dev outbox, which keeps mail on this machine for\n` +
        'npm run dev: a deployment sends none with it. Set it to "cloudflare" (docs/mail.md) or to ""\n' +
        "(no mail), then run npm run deploy again; nothing was created.",
    );
  if (flagOn(vars.WEBHOOK_ALLOW_LOCAL))
    stop(
      `${CONFIG} sets WEBHOOK_ALLOW_LOCAL = "true", which is for npm run dev: loopback webhook URLs\n` +
        'name no machine a deployment can reach. Set it to "false", then run npm run deploy again;\n' +
        "nothing was created.",
    );
  // npm run dev's own SITE_URL: every link and guid the deployment answers would name this machine.
  const siteUrl = URL.parse(configuredSiteUrl({ SITE_URL: varText(vars.SITE_URL) }));
  if (siteUrl && isLocalAddress(siteUrl.href))
    stop(
      `${CONFIG} sets SITE_URL = "${vars.SITE_URL}", this machine's address, which npm run dev sets\n` +
        "for itself: every link and guid the deployment answers would name it. Set it to the\n" +
        'deployment\'s URL, or to "" (the address each request came to), then run npm run deploy\n' +
        "again; nothing was created.",
    );

  // 1. Signed in, and to one account.
  const who = runWrangler(["whoami", "--json"]);
  if (who.status !== 0) {
    if (/"loggedIn":\s*false/.test(who.stdout + who.stderr))
      stop(
        "Not logged in to Cloudflare. Run\n  npx wrangler login\nthen run npm run deploy again.",
      );
    stop(`wrangler whoami failed:\n${who.stdout}${who.stderr}`);
  }
  const user = parse<{ email?: string; accounts: { id: string; name: string }[] }>(who.stdout);
  const accountId = process.env.CLOUDFLARE_ACCOUNT_ID ?? topLevelValue(toml, "account_id");
  if (!accountId && user.accounts.length > 1) {
    const choices = user.accounts.map((account) => `  ${account.id}  ${account.name}`).join("\n");
    stop(
      `This login reaches ${user.accounts.length} accounts; name the one to deploy to:\n${choices}\n` +
        "  CLOUDFLARE_ACCOUNT_ID=<id> npm run deploy",
    );
  }
  const account = accountId ? user.accounts.find((one) => one.id === accountId) : user.accounts[0];
  // An id this login does not reach: wrangler would take it for an account it cannot use, or
  // another one (an API token scoped to one account lists none).
  if (accountId && !account && user.accounts.length > 0) {
    const choices = user.accounts.map((one) => `  ${one.id}  ${one.name}`).join("\n");
    stop(
      `${process.env.CLOUDFLARE_ACCOUNT_ID ? "CLOUDFLARE_ACCOUNT_ID" : `${CONFIG}'s account_id`} names ` +
        `account ${accountId}, which this login does not reach. It reaches:\n${choices}`,
    );
  }
  // An API token that may not list accounts names none: wrangler then takes CLOUDFLARE_ACCOUNT_ID,
  // account_id or the account it last chose, and says so if it has none.
  const accountName = account?.name ?? accountId;
  console.log(
    `Signed in as ${user.email ?? "an API token"}${accountName ? `, account ${accountName}` : ""}.`,
  );

  // 2. The D1 database the DB binding names, in this account, with its id in wrangler.toml.
  const listDatabases = () =>
    parse<{ uuid: string; name: string }[]>(run(["d1", "list", "--json"]));
  const databases = listDatabases();
  if (wanted.id) {
    if (!databases.some((db) => db.uuid === wanted.id))
      stop(
        `${CONFIG} binds DB to database_id ${wanted.id}, which this account has no database for.\n` +
          `Deploying to another account? Delete that database_id line, and npm run deploy finds or\n` +
          `creates "${wanted.name}" in this one.`,
      );
    console.log(`D1 database "${wanted.name}" (${wanted.id}) is in place.`);
  } else {
    let found = databases.find((db) => db.name === wanted.name);
    if (found) console.log(`Found D1 database "${wanted.name}" (${found.uuid}).`);
    else {
      run(["d1", "create", wanted.name]);
      found = listDatabases().find((db) => db.name === wanted.name);
      if (!found)
        stop(`wrangler d1 create ${wanted.name} succeeded, but d1 list does not show it.`);
      console.log(`Created D1 database "${wanted.name}" (${found.uuid}).`);
    }
    toml = withDatabaseId(toml, BINDING, found.uuid);
    writeFileSync(CONFIG, toml);
    console.log(`Wrote its id into ${CONFIG} (binding DB); keep that change for later deploys.`);
  }

  // 2b. The queues wrangler.toml binds (webhook delivery, docs/events.md): `wrangler deploy` 4.164
  // would create a missing producer's queue only as it uploads (automatic provisioning); they are
  // made here first, as the database is. wrangler (4.86 as 4.164) has no JSON form of `queues
  // list`, only a table for people; `queues info <name>` succeeds exactly when the queue exists.
  // Any other failure of it (network, login) makes the `queues create` after it fail too, which
  // stops here.
  const queues = queueNames(toml);
  for (const name of queues) {
    if (runWrangler(["queues", "info", name]).status === 0) continue;
    run(["queues", "create", name]);
    console.log(`Created queue "${name}".`);
  }
  if (queues.length > 0) console.log(`Queues in place: ${queues.join(", ")}.`);

  // 3. Pending migrations reach the remote database before the code that needs them. `d1 migrations
  // list` has no JSON form (4.86 as 4.164), so the applied ones are read as wrangler reads them: the
  // names in its table, created first as wrangler's own list creates it (CREATE TABLE IF NOT
  // EXISTS, the same columns), compared by name with the .sql files in the migrations folder, as
  // wrangler compares them; the pending ones are listed in name order.
  const remoteSql = <Row>(sql: string) =>
    parse<{ results: Row[] }[]>(
      run(["d1", "execute", BINDING, "--remote", "--json", "--command", sql]),
    );
  const appliedRows = remoteSql<{ name: string }>(
    `CREATE TABLE IF NOT EXISTS ${wanted.migrationsTable}(id INTEGER PRIMARY KEY AUTOINCREMENT, ` +
      "name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL); " +
      `SELECT name FROM ${wanted.migrationsTable} ORDER BY id`,
  ).at(-1)!.results;
  const applied = new Set(appliedRows.map((row) => row.name));
  const pending = readdirSync(wanted.migrationsDir)
    .filter((name) => name.endsWith(".sql") && !applied.has(name))
    .sort();
  // `migrations apply --remote` sends each migration as one request to D1's API, which stops it at
  // 30 s and rolls it back, the database serving nothing meanwhile. A pending migration that
  // rewrites every entry is estimated first from their count (not the largest id: an imported
  // entry keeps its WordPress post id, which every kind of post shares; SQLite counts a table from
  // its smallest index, 17 ms for a million here) and refused when it would not fit.
  const rewrites = pending.filter((name) => name in REWRITES_EVERY_ENTRY);
  if (rewrites.length > 0 && !pending.includes("0000_init.sql")) {
    const entryCount = remoteSql<{ entries: number }>(
      "SELECT count(*) AS entries FROM transactions",
    ).at(-1)!.results[0];
    const entries = entryCount?.entries ?? 0;
    const tooLong = rewrites.flatMap((name) => {
      const perMillion = REWRITES_EVERY_ENTRY[name]!;
      const seconds = Math.round((perMillion * entries) / 1e6);
      return seconds < D1_QUERY_LIMIT_S
        ? []
        : [
            `${name} rewrites every entry: about ${seconds} s for the database's ` +
              `${entries.toLocaleString("en-US")} entries (${perMillion} s a million, measured locally)`,
          ];
    });
    if (tooLong.length > 0)
      stop(
        `${tooLong.join("\n")}\nD1 stops a migration at ${D1_QUERY_LIMIT_S} s and rolls it back, the database ` +
          "serving no request meanwhile. Upgrade it as\ndocs/deploying.md#upgrading-a-large-database " +
          "says; nothing was migrated or uploaded.",
      );
  }
  if (pending.length === 0) console.log("Migrations: none pending.");
  else {
    console.log(
      `Applying ${pending.length} migration(s) to the remote database: ${pending.join(", ")}`,
    );
    const migrated = await streamWrangler(["d1", "migrations", "apply", BINDING, "--remote"]);
    if (migrated.status !== 0) stop("A migration failed (above); nothing was deployed.");
  }

  if (flags.prepare) {
    console.log(
      "\nPrepared: the database is migrated; nothing was uploaded. Import the site now\n" +
        "(npm run import:wordpress -- DUMP --remote), then run npm run deploy.",
    );
    return;
  }

  // 4. Secrets, checked before anything is uploaded. JWT_SECRET only signs the service's own tokens:
  // nobody needs to know it, so a missing one is generated and goes up with the code itself: 32
  // random bytes as 64 hex characters, past the service's minimum. A set one cannot be read back;
  // the Worker refuses a short one itself (503, named by GET /health).
  const secretList = runWrangler(["secret", "list", "--format", "json"]);
  let secrets: string[] = [];
  if (secretList.status === 0)
    secrets = parse<{ name: string }[]>(secretList.stdout).map((secret) => secret.name);
  // A Worker not deployed yet has no secrets: wrangler says so only in words (its error has no code).
  else if (!/Worker ".*" not found/.test(secretList.stdout + secretList.stderr))
    stop(`wrangler secret list failed:\n${secretList.stdout}${secretList.stderr}`);
  // WEBHOOK_SECRET_KEY seals the webhook endpoints' signing secrets in D1: nobody needs to know it
  // either, so a missing one is generated the same way (replacing a set one would make the stored
  // secrets unreadable, so a set one is never touched).
  const generated: Record<string, string> = {};
  for (const name of ["JWT_SECRET", "WEBHOOK_SECRET_KEY"]) {
    if (secrets.includes(name)) {
      console.log(`Secret ${name} is set.`);
      continue;
    }
    generated[name] = randomBytes(JWT_SECRET_MIN_LENGTH).toString("hex");
    console.log(
      `Secret ${name} is missing: a random one (32 bytes) is generated and uploaded with this version.`,
    );
  }
  if (!secrets.includes("TRANSACTIONS_SECURITY_CODE"))
    console.log(
      "Secret TRANSACTIONS_SECURITY_CODE (optional) is not set: GET /transactions takes any integer\n" +
        "as security_code (to require one: npm run wrangler -- secret put TRANSACTIONS_SECURITY_CODE).",
    );

  // 4b. The first administrator, before the code goes up, so the console never runs without one
  // and a missing detail stops the deploy before the upload (what was set up so far stays, and the
  // next run goes on from there). A database that has one asks nothing; one marked unable to sign
  // in (a network's spam user an import brought, src/db/schema.ts) is none for the console.
  const [counted] = remoteSql<{ administrators: number }>(
    `SELECT count(*) AS administrators FROM users WHERE role = 'administrator' AND ${PASSWORD_USABLE_SQL}`,
  );
  const administrators = counted?.results[0]?.administrators ?? 0;
  if (administrators > 0) console.log("Administrator: the database has one; nothing to ask.");
  else {
    const account = await adminAccount(admin, process.stdin.isTTY === true);
    if (!account) stop(ADMIN_NEEDED);
    let created: Awaited<ReturnType<typeof ensureAdmin>>;
    try {
      created = await ensureAdmin(account, wranglerSql("--remote"));
    } catch (error) {
      stop(`Creating the administrator failed; nothing was uploaded.\n${(error as Error).message}`);
    }
    if (!created.created)
      stop(
        `"${account.username}" or "${account.email}" names an existing user (as a username or an ` +
          "e-mail), or the username is another e-mail address: choose others; nothing was uploaded.",
      );
    console.log(`Created administrator ${account.username} <${account.email}> (id ${created.id}).`);
  }

  // 5. The upload. A generated secret travels in a file only this user reads, in a fresh folder
  // removed at once; wrangler's output file (WRANGLER_OUTPUT_FILE_PATH, one JSON entry a line) goes
  // there too: its `deploy` entry lists the Worker's targets, a `command-failed` entry the error.
  const workDir = mkdtempSync(path.join(tmpdir(), "wallet-deploy-"));
  const outputFile = path.join(workDir, "wrangler-output.ndjson");
  const deployArgs = ["deploy", "--minify"];
  if (Object.keys(generated).length > 0) {
    const file = path.join(workDir, "secrets.json");
    writeFileSync(file, JSON.stringify(generated), { mode: 0o600 });
    deployArgs.push("--secrets-file", file);
  }
  let deployed: Awaited<ReturnType<typeof streamWrangler>>;
  let entries: ReturnType<typeof readOutputFile>;
  try {
    deployed = await streamWrangler(deployArgs, { WRANGLER_OUTPUT_FILE_PATH: outputFile });
    entries = readOutputFile(outputFile);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  if (deployed.status !== 0) {
    const failure = entries.find((entry) => entry.type === "command-failed")?.message ?? "";
    if (/register a workers\.dev subdomain/.test(failure))
      stop(
        "The account has no workers.dev subdomain yet: choose one at the link above (Workers &\n" +
          "Pages, once per account), or give the Worker a custom domain (docs/deploying.md), then run\n" +
          "npm run deploy again.",
      );
    stop("wrangler deploy failed (above). Run npm run deploy again once it is fixed.");
  }

  // The deploy entry's targets are wrangler's own lines: "https://<name>.<subdomain>.workers.dev",
  // "<host> (custom domain…)", a zone route's "<pattern>" or "<pattern> (zone name: …)" / "(zone
  // id: …)", "schedule: …", "Producer for …", …: a route is a line of one word, its pattern, with
  // its zone or without, that is not the workers.dev URL.
  const targets = entries.findLast((entry) => entry.type === "deploy")?.targets ?? [];
  const workersDev = targets.find((target) => /^https:\/\/\S+\.workers\.dev$/.test(target));
  const customDomain = targets
    .map((target) => target.match(/^(\S+) \(custom domain/)?.[1])
    .find(Boolean);
  const routes = targets.filter(
    (target) => target !== workersDev && /^\S+( \(zone (name|id): [^)]*\))?$/.test(target),
  );
  // A route is one address only when its host has no wildcard and its path, /*, covers every path
  // the API, the console and /health answer on; its scheme, when it names one, is the only one.
  const routeSite = routes
    .map((route) => route.match(/^(https?:\/\/)?([^*/\s]+)\/\*(?: |$)/))
    .map((parts) => parts && `${parts[1] ?? "https://"}${parts[2]}`)
    .find(Boolean);
  // A custom domain or a route is the address the operator chose; workers.dev is the one every
  // Worker has.
  const site = customDomain ? `https://${customDomain}` : (routeSite ?? workersDev);
  if (!site && routes.length === 0)
    stop(
      "Deployed, but wrangler named no workers.dev URL, custom domain or route (see above): the\n" +
        "code is uploaded and nothing reaches it. Turn workers_dev on or add a route\n" +
        "(docs/deploying.md), then run npm run deploy again.",
    );
  console.log("\nDeployed.");
  for (const route of routes) console.log(`Route:    ${route}`);
  if (site)
    console.log(`API:      ${site}/wp-json/wallet/v1
Console:  ${site}/wallet-admin/
Health:   ${site}/health (200 {"status":"ok",…} once the settings and D1 are usable)`);
  else
    console.log(
      "No URLs to print: a route with a wildcard in its host, or a path other than /*, names no one\n" +
        "address. The API answers at /wp-json/wallet/v1, the console at /wallet-admin/ and the health\n" +
        "check at /health, on each host whose every path a route sends to the Worker.",
    );
});

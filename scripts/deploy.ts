// `npm run deploy`: after `npx wrangler login`, one command from a fresh Cloudflare account to a
// working API and console, and the same command for every deploy after it (docs/deploying.md).
// The D1 database is found or created here and its id written into wrangler.toml, because
// wrangler's own provisioning creates it only while uploading the code, and `d1 migrations apply
// --remote` refuses a binding without an id: the migrations must reach the database first.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { JWT_SECRET_MIN_LENGTH } from "../src/settings";
import { runWrangler, streamWrangler } from "./lib/wrangler";
import { queueNames, readD1, topLevelValue, withDatabaseId } from "./lib/wrangler-toml";

const CONFIG = "wrangler.toml";
const BINDING = "DB";

function stop(message: string): never {
  console.error(`\n${message}`);
  process.exit(1);
}

/** Runs a wrangler command that must succeed; stops with its output otherwise. */
function run(args: string[]) {
  const result = runWrangler(args);
  if (result.status !== 0)
    stop(`wrangler ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** wrangler's JSON answer, after any line a warning put before it. */
const parse = <T>(out: string): T => JSON.parse(out.slice(out.search(/[[{]/)));

// 1. Signed in, and to one account.
const who = runWrangler(["whoami", "--json"]);
if (who.status !== 0) {
  if (/"loggedIn":\s*false/.test(who.stdout + who.stderr))
    stop("Not logged in to Cloudflare. Run\n  npx wrangler login\nthen run npm run deploy again.");
  stop(`wrangler whoami failed:\n${who.stdout}${who.stderr}`);
}
const user = parse<{ email?: string; accounts: { id: string; name: string }[] }>(who.stdout);
let toml = readFileSync(CONFIG, "utf8");
const accountId = process.env.CLOUDFLARE_ACCOUNT_ID ?? topLevelValue(toml, "account_id");
if (!accountId && user.accounts.length > 1) {
  const choices = user.accounts.map((account) => `  ${account.id}  ${account.name}`).join("\n");
  stop(
    `This login reaches ${user.accounts.length} accounts; name the one to deploy to:\n${choices}\n` +
      "  CLOUDFLARE_ACCOUNT_ID=<id> npm run deploy",
  );
}
const account = user.accounts.find((one) => one.id === accountId) ?? user.accounts[0];
console.log(`Signed in as ${user.email ?? "an API token"}, account ${account?.name ?? accountId}.`);

// 2. The D1 database the DB binding names, in this account, with its id in wrangler.toml.
const wanted = readD1(toml, BINDING);
if (!wanted?.name)
  stop(`${CONFIG} has no [[d1_databases]] with binding = "DB" and a database_name.`);
const listDatabases = () => parse<{ uuid: string; name: string }[]>(run(["d1", "list", "--json"]));
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
    if (!found) stop(`wrangler d1 create ${wanted.name} succeeded, but d1 list does not show it.`);
    console.log(`Created D1 database "${wanted.name}" (${found.uuid}).`);
  }
  toml = withDatabaseId(toml, BINDING, found.uuid);
  writeFileSync(CONFIG, toml);
  console.log(`Wrote its id into ${CONFIG} (binding DB); keep that change for later deploys.`);
}

// 2b. The queues wrangler.toml binds (webhook delivery, docs/events.md): `wrangler deploy` binds
// them but does not create them. `queues list` prints a table; a queue is there when a cell holds
// exactly its name.
const queues = queueNames(toml);
if (queues.length > 0) {
  const listed = run(["queues", "list"]);
  for (const name of queues) {
    const cell = new RegExp(`[│|]\\s*${name.replace(/[-\\^$*+?.()|[\]{}]/g, "\\$&")}\\s*[│|]`);
    if (cell.test(listed)) continue;
    run(["queues", "create", name]);
    console.log(`Created queue "${name}".`);
  }
  console.log(`Queues in place: ${queues.join(", ")}.`);
}

// 3. Secrets, checked before anything is uploaded. JWT_SECRET only signs the service's own tokens:
// nobody needs to know it, so a missing one is generated and goes up with the code itself: 32
// random bytes as 64 hex characters, past the service's minimum. A set one cannot be read back;
// the Worker refuses a short one itself (503, named by GET /health).
const secretList = runWrangler(["secret", "list", "--format", "json"]);
let secrets: string[] = [];
if (secretList.status === 0)
  secrets = parse<{ name: string }[]>(secretList.stdout).map((secret) => secret.name);
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
    "Secret TRANSACTIONS_SECURITY_CODE (optional) is not set: GET /transactions asks for no\n" +
      "security_code (to require one: npm run wrangler -- secret put TRANSACTIONS_SECURITY_CODE).",
  );

// 4. Pending migrations reach the remote database before the code that needs them.
const pending = run(["d1", "migrations", "list", BINDING, "--remote"]);
if (/No migrations to apply/.test(pending)) console.log("Migrations: none pending.");
else {
  const names = pending.match(/\d{4}_[\w-]+\.sql/g) ?? [];
  console.log(`Applying ${names.length} migration(s) to the remote database: ${names.join(", ")}`);
  const applied = await streamWrangler(["d1", "migrations", "apply", BINDING, "--remote"]);
  if (applied.status !== 0) stop("A migration failed (above); nothing was deployed.");
}

// 5. The upload; a generated secret travels in a file only this user reads, removed at once.
const secretsDir =
  Object.keys(generated).length > 0 ? mkdtempSync(path.join(tmpdir(), "wallet-deploy-")) : null;
const deployArgs = ["deploy", "--minify"];
if (secretsDir) {
  const file = path.join(secretsDir, "secrets.json");
  writeFileSync(file, JSON.stringify(generated), { mode: 0o600 });
  deployArgs.push("--secrets-file", file);
}
let deployed: Awaited<ReturnType<typeof streamWrangler>>;
try {
  deployed = await streamWrangler(deployArgs);
} finally {
  if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
}
if (deployed.status !== 0) {
  if (/register a workers\.dev subdomain/.test(deployed.output))
    stop(
      "The account has no workers.dev subdomain yet: choose one at the link above (Workers &\n" +
        "Pages, once per account), or give the Worker a custom domain (docs/deploying.md), then run\n" +
        "npm run deploy again.",
    );
  stop("wrangler deploy failed (above). Run npm run deploy again once it is fixed.");
}

const workersDev = deployed.output.match(/^\s+(https:\/\/\S+\.workers\.dev)\s*$/m)?.[1];
const customDomain = deployed.output.match(/^\s+(\S+) \(custom domain/m)?.[1];
// A custom domain is the address the operator chose; workers.dev is the one every Worker has.
const site = customDomain ? `https://${customDomain}` : workersDev;
if (!site) stop("Deployed, but wrangler named no workers.dev URL or custom domain (see above).");
console.log(`
Deployed.
API:      ${site}/wp-json/wallet/v1
Console:  ${site}/wallet-admin/
Health:   ${site}/health (200 {"status":"ok",…} once the settings and D1 are usable)
First administrator (asks for the password; use your own name and address):
  npm run admin:create -- --remote --username admin --email you@example.com`);

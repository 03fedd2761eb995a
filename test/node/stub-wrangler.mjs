// A stand-in for wrangler 4.86 (test only; tools run it when WRANGLER_BIN names this file): it
// appends each command line to the state file named by STUB_WRANGLER_STATE and answers from that
// state the way wrangler answers (texts copied from wrangler-dist/cli.js). Anything else exits 2.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

const statePath = process.env.STUB_WRANGLER_STATE;
const state = JSON.parse(readFileSync(statePath, "utf8"));
const args = process.argv.slice(2);
state.commands.push(args.join(" "));
const save = () => writeFileSync(statePath, JSON.stringify(state, null, 2));
const answer = (out, status = 0, err = "") => {
  save();
  process.stdout.write(out);
  process.stderr.write(err);
  process.exit(status);
};
const is = (...words) => words.every((word, at) => args[at] === word);

/** The database wrangler.toml binds DB to, as wrangler requires for --remote D1 commands. */
function remoteDatabase() {
  const id = readFileSync("wrangler.toml", "utf8").match(/^database_id = "(.+)"$/m)?.[1];
  if (!id)
    answer(
      "",
      1,
      "✘ [ERROR] Found a database with name or binding DB but it is missing a database_id, which is needed for operations on remote resources.\n",
    );
  state.applied[id] ??= [];
  return id;
}
const pendingMigrations = (id) =>
  readdirSync("drizzle")
    .filter((name) => name.endsWith(".sql") && !state.applied[id].includes(name))
    .sort();
const table = (names) => names.map((name) => `│ ${name} │\n`).join("");

if (is("whoami", "--json")) {
  if (!state.loggedIn) answer('{"loggedIn":false}\n', 1);
  answer(JSON.stringify({ loggedIn: true, email: state.email, accounts: state.accounts }));
}
if (is("d1", "list", "--json")) answer(JSON.stringify(state.databases, null, 2));
if (is("d1", "create") && args.length === 3) {
  const uuid = `5a1e0000-0000-4000-8000-00000000000${state.databases.length + 1}`;
  state.databases.push({ uuid, name: args[2] });
  answer(
    `✅ Successfully created DB '${args[2]}' in region WEUR\nCreated your new D1 database.\n\n` +
      "To access your new D1 Database in your Worker, add the following snippet to your configuration file:\n" +
      `[[d1_databases]]\nbinding = "wallet_ledger"\ndatabase_name = "${args[2]}"\ndatabase_id = "${uuid}"\n`,
  );
}
if (is("d1", "migrations", "list", "DB", "--remote") && args.length === 5) {
  const pending = pendingMigrations(remoteDatabase());
  answer(
    pending.length === 0
      ? "✅ No migrations to apply!\n"
      : `Migrations to be applied:\n${table(pending)}`,
  );
}
if (is("d1", "migrations", "apply", "DB", "--remote") && args.length === 5) {
  const id = remoteDatabase();
  const pending = pendingMigrations(id);
  state.applied[id].push(...pending);
  answer(
    pending.length === 0
      ? "✅ No migrations to apply!\n"
      : `Migrations to be applied:\n${table(pending)}`,
  );
}
if (is("queues", "list") && args.length === 2) {
  // wrangler prints a table (logger.table), one row per queue.
  state.queues ??= [];
  const rows = state.queues.map(
    (name, i) => `│ q${i} │ ${name} │ 2026-11-26 │ 2026-11-26 │ 0 │ 0 │\n`,
  );
  answer(
    `┌────┬────┬────┬────┬────┬────┐\n│ id │ name │ created_on │ modified_on │ producers │ consumers │\n${rows.join("")}`,
  );
}
if (is("queues", "create") && args.length === 3) {
  state.queues ??= [];
  state.queues.push(args[2]);
  answer(`🌀 Creating queue '${args[2]}'\n✅ Created queue '${args[2]}'\n`);
}
if (is("secret", "list", "--format", "json") && args.length === 4) {
  if (!state.worker)
    answer(
      "",
      1,
      `✘ [ERROR] Worker "wallet-ledger" not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.\n`,
    );
  answer(JSON.stringify(state.worker.secrets.map((name) => ({ name, type: "secret_text" }))));
}
if (
  is("deploy", "--minify") &&
  (args.length === 2 || (args.length === 4 && args[2] === "--secrets-file"))
) {
  // What the uploaded version would run against: the schema it finds, the secrets it gets.
  const id = remoteDatabase();
  // wrangler deploy binds the queues wrangler.toml names and refuses when one does not exist.
  const named = [
    ...readFileSync("wrangler.toml", "utf8").matchAll(/^(?:queue|dead_letter_queue) = "(.+)"$/gm),
  ].map((m) => m[1]);
  const missing = named.find((name) => !(state.queues ?? []).includes(name));
  if (missing)
    answer(
      "",
      1,
      `✘ [ERROR] Queue "${missing}" does not exist. To create it, run: wrangler queues create ${missing}\n`,
    );
  const uploaded = args[3] ? JSON.parse(readFileSync(args[3], "utf8")) : {};
  state.worker ??= { secrets: [], secretLengths: {} };
  for (const [name, value] of Object.entries(uploaded)) {
    if (!state.worker.secrets.includes(name)) state.worker.secrets.push(name);
    state.worker.secretLengths[name] = value.length;
  }
  state.deployments.push({ databaseId: id, pendingMigrations: pendingMigrations(id) });
  if (!state.subdomain)
    answer(
      "Uploaded wallet-ledger (1.20 sec)\n",
      1,
      "▲ [WARNING] You need to register a workers.dev subdomain before publishing to workers.dev\n\n" +
        "✘ [ERROR] You can either deploy your worker to one or more routes by specifying them in your wrangler.toml file, or register a workers.dev subdomain here:\n" +
        "https://dash.cloudflare.com/acc1/workers/onboarding\n",
    );
  answer(
    "Total Upload: 599.23 KiB / gzip: 140.92 KiB\nUploaded wallet-ledger (3.21 sec)\n" +
      "Deployed wallet-ledger triggers (1.02 sec)\n" +
      `  https://wallet-ledger.${state.subdomain}.workers.dev\n` +
      "Current Version ID: 0b1c2d3e-0000-4000-8000-000000000000\n",
  );
}
answer("", 2, `stub wrangler: unexpected command: ${args.join(" ")}\n`);

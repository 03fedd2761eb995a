// A stand-in for wrangler 4.164 (test only; tools run it when WRANGLER_BIN names this file): it
// appends each command line to the state file named by STUB_WRANGLER_STATE and answers from that
// state the way wrangler answers (texts and JSON shapes copied from wrangler-dist/cli.js), on
// stdout, stderr and, when WRANGLER_OUTPUT_FILE_PATH names one, in the output file (ND-JSON:
// a `wrangler-session` entry, then `deploy` or `command-failed`). Anything else exits 2.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { getStaticTOMLValue, parseTOML } from "toml-eslint-parser";

const statePath = process.env.STUB_WRANGLER_STATE;
const outputFile = process.env.WRANGLER_OUTPUT_FILE_PATH;
const state = JSON.parse(readFileSync(statePath, "utf8"));
const args = process.argv.slice(2);
state.commands.push(args.join(" "));
// What every user of the machine can list for this process (ps reads /proc/PID/cmdline): the
// command line it was started with, whatever a preload later adds to process.argv.
state.commandLines ??= [];
state.commandLines.push(readFileSync("/proc/self/cmdline", "utf8").split("\0").join(" "));
const save = () => writeFileSync(statePath, JSON.stringify(state, null, 2));
const output = (entry) => {
  if (outputFile)
    appendFileSync(
      outputFile,
      `${JSON.stringify({ ...entry, timestamp: "2026-11-28T00:00:00Z" })}\n`,
    );
};
output({
  type: "wrangler-session",
  version: 1,
  wrangler_version: "4.164.0",
  command_line_args: args,
});
const answer = (out, status = 0, err = "") => {
  save();
  if (status !== 0 && err) {
    const message = err
      .split("\n✘ [ERROR] ")
      .at(-1)
      .replace(/^✘ \[ERROR\] /, "")
      .trim();
    output({ type: "command-failed", version: 1, message });
  }
  process.stdout.write(out);
  process.stderr.write(err);
  process.exit(status);
};
const is = (...words) => words.every((word, at) => args[at] === word);
const config = () => getStaticTOMLValue(parseTOML(readFileSync("wrangler.toml", "utf8")));

/** The database wrangler.toml binds DB to, for --remote D1 commands: by its id, else by its name. */
function remoteDatabase() {
  const bound = config().d1_databases?.find((db) => db.binding === "DB");
  const id =
    bound?.database_id || state.databases.find((db) => db.name === bound?.database_name)?.uuid;
  if (!id)
    answer(
      "",
      1,
      `✘ [ERROR] Couldn't find a D1 DB named '${bound?.database_name}' (bound as 'DB') in the API. Run 'wrangler d1 create ${bound?.database_name}' to create it.\n`,
    );
  state.applied[id] ??= [];
  return id;
}
const pendingMigrations = (id) =>
  readdirSync("drizzle")
    .filter((name) => name.endsWith(".sql") && !state.applied[id].includes(name))
    .sort();
const table = (names) => names.map((name) => `│ ${name} │\n`).join("");
/** `d1 execute --json`: one result per statement, as D1's API returns them. */
const results = (...rows) =>
  answer(
    JSON.stringify(
      rows.map((r) => ({ results: r, success: true, meta: {} })),
      null,
      2,
    ),
  );

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
if (is("d1", "execute", "DB", "--remote", "--json", "--command") && args.length === 7) {
  const id = remoteDatabase();
  const sql = args[6];
  state.users ??= [];
  // wrangler's own `d1 migrations list` runs the same CREATE TABLE first.
  if (
    /^CREATE TABLE IF NOT EXISTS d1_migrations\(.*; SELECT name FROM d1_migrations ORDER BY id$/.test(
      sql,
    )
  )
    results(
      [],
      state.applied[id].map((name) => ({ name })),
    );
  if (
    sql ===
    "SELECT count(*) AS administrators FROM users WHERE role = 'administrator' AND substr(password_hash, 1, 1) <> '!'"
  ) {
    if (!state.applied[id].includes("0000_init.sql"))
      answer("", 1, "✘ [ERROR] no such table: users: SQLITE_ERROR\n");
    const signsIn = (u) =>
      u.role === "administrator" && !String(u.passwordHash ?? "").startsWith("!");
    results([{ administrators: state.users.filter(signsIn).length }]);
  }
  // The entries `npm run deploy` counts before a migration that rewrites every entry, or their
  // largest id (an imported entry keeps its WordPress post id, so it may be far above the count).
  const entries = {
    "SELECT count(*) AS entries FROM transactions": state.entries?.[id] ?? 0,
    "SELECT coalesce(max(id), 0) AS entries FROM transactions":
      state.largestIds?.[id] ?? state.entries?.[id] ?? 0,
  }[sql];
  if (entries !== undefined) {
    if (!state.applied[id].includes("0000_init.sql"))
      answer("", 1, "✘ [ERROR] no such table: transactions: SQLITE_ERROR\n");
    results([{ entries }]);
  }
  const insert = sql.match(/^INSERT INTO users \(.*\) SELECT '([^']*)', '([^']*)', '([^']*)'/);
  // `failInsert`: D1 refuses the statement, and wrangler's error quotes it (as SQLite errors can).
  if (insert && state.failInsert) answer("", 1, `✘ [ERROR] ${sql}: SQLITE_BUSY\n`);
  if (insert) {
    const [, username, email, passwordHash] = insert;
    const taken = (text) =>
      state.users.some((u) =>
        [u.username, u.email].some((t) => t.toLowerCase() === text.toLowerCase()),
      );
    if (taken(username) || taken(email)) results([]);
    const user = {
      id: state.users.length + 1,
      username,
      email,
      passwordHash,
      role: "administrator",
    };
    state.users.push(user);
    results([{ id: user.id }]);
  }
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
if (is("queues", "info") && args.length === 3) {
  if (!(state.queues ?? []).includes(args[2]))
    answer(
      "",
      1,
      `✘ [ERROR] Queue "${args[2]}" does not exist. To create it, run: wrangler queues create ${args[2]}\n`,
    );
  answer(`Queue Name: ${args[2]}\nQueue ID: q-${args[2]}\nCreated On: 2026-11-26\n`);
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
  const toml = config();
  // wrangler deploy refuses a queue wrangler.toml names that does not exist, as it does with
  // automatic provisioning off (4.164's default would create a producer's): the script makes them.
  const producers = (toml.queues?.producers ?? []).map((p) => p.queue);
  const consumers = (toml.queues?.consumers ?? []).map((c) => c.queue);
  const missing = [...producers, ...consumers].find((name) => !(state.queues ?? []).includes(name));
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
  const routes = toml.routes ?? [];
  const workersDev = toml.workers_dev ?? routes.length === 0;
  if (workersDev && !state.subdomain)
    answer(
      "Uploaded wallet-ledger (1.20 sec)\n",
      1,
      "▲ [WARNING] You need to register a workers.dev subdomain before publishing to workers.dev\n\n" +
        "✘ [ERROR] You can either deploy your worker to one or more routes by specifying them in your wrangler.toml file, or register a workers.dev subdomain here:\n" +
        "https://dash.cloudflare.com/acc1/workers/onboarding\n",
    );
  // triggersDeploy's targets, in its order: workers.dev, routes, custom domains, crons, queues;
  // each route as its renderRoute writes it.
  const render = (route) => {
    if (typeof route === "string") return route;
    const kind = route.custom_domain ? "custom domain" : "";
    const zone = route.zone_id
      ? `zone id: ${route.zone_id}`
      : route.zone_name
        ? `zone name: ${route.zone_name}`
        : "";
    const note = [kind, zone].filter(Boolean).join(" - ");
    return note ? `${route.pattern} (${note})` : route.pattern;
  };
  const targets = [
    ...(workersDev ? [`https://wallet-ledger.${state.subdomain}.workers.dev`] : []),
    ...routes.filter((r) => !r.custom_domain).map(render),
    ...routes.filter((r) => r.custom_domain).map(render),
    ...(toml.triggers?.crons ?? []).map((cron) => `schedule: ${cron}`),
    ...producers.map((queue) => `Producer for ${queue}`),
    ...consumers.map((queue) => `Consumer for ${queue}`),
  ];
  const versionId = "0b1c2d3e-0000-4000-8000-000000000000";
  output({
    type: "deploy",
    version: 1,
    worker_name: "wallet-ledger",
    version_id: versionId,
    targets,
  });
  answer(
    "Total Upload: 599.23 KiB / gzip: 140.92 KiB\nUploaded wallet-ledger (3.21 sec)\n" +
      `Deployed wallet-ledger triggers (1.02 sec)\n${targets.map((t) => `  ${t}\n`).join("")}` +
      `Current Version ID: ${versionId}\n`,
  );
}
answer("", 2, `stub wrangler: unexpected command: ${args.join(" ")}\n`);

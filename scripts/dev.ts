// `npm run dev`: a migrated local D1, a dev-only JWT secret, a local administrator and a demo wallet,
// then wrangler dev with SITE_URL on its own port. `npm run serve` (`--serve`) prepares the same and
// serves the deploy bundle as production runs it instead: under Miniflare alone, no inspector, no
// file watching, the same code the benches serve (scripts/lib/bench-worker.ts); `--quiet` drops
// the worker's log lines.

import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { parseArgs, parseEnv } from "node:util";
import { PASSWORD_USABLE_SQL } from "../src/db/schema";
import {
  flagOn,
  JWT_SECRET_MIN_LENGTH,
  retryBaseS,
  settingProblems,
  usableJwtSecret,
  WEBHOOK_SECRET_KEY_MIN_LENGTH,
} from "../src/settings";
import {
  type AdminAccount,
  accountProblem,
  ensureAdmin,
  type SeedOutcome,
  seedLine,
  signsInWith,
} from "./lib/admin";
import { demoWalletSql } from "./lib/admin-insert";
import { CONFIG, configProblem } from "./lib/config-check";
import {
  DEV_DEFAULTS,
  devMailOutbox,
  devSecrets,
  devValue,
  devVarArgs,
  newDevVars,
} from "./lib/dev-vars";
import { runMain, stop } from "./lib/exit";
import { migratedLocalD1 } from "./lib/local-d1";
import { freePort, portIsFree } from "./lib/server";
import { sqlLiteral } from "./lib/sql";
import { type RunSql, startBenchWorker, startWranglerDev } from "./lib/wrangler";
import { topLevelVars } from "./lib/wrangler-toml";

const USAGE =
  "usage: npm run dev [-- --port N]   (PORT, else 8787)\n" +
  "       npm run serve [-- --port N] [--quiet]   (the deploy bundle; --quiet drops its log lines)\n" +
  "WALLET_ADMIN_USERNAME, WALLET_ADMIN_EMAIL, WALLET_ADMIN_PASSWORD: the local administrator (README.md)";

await runMain(async () => {
  // Its options, checked before anything is written: an unknown one (a typo of --port) would
  // otherwise serve somewhere else than meant.
  let flags: { serve?: boolean; port?: string; quiet?: boolean; help?: boolean };
  try {
    flags = parseArgs({
      options: {
        serve: { type: "boolean" },
        port: { type: "string" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    stop(`${(error as Error).message}\n${USAGE}`);
  }
  const serve = flags.serve === true;
  const command = serve ? "npm run serve" : "npm run dev";
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  // The port: `--port N`, else PORT, else 8787. A taken one stops here, before anything is written,
  // with one line saying what to do.
  const portText = flags.port ?? process.env.PORT ?? "8787";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)
    stop(`${command}: "${portText}" is not a port (1-65535).`);
  const port = portText;
  if (!(await portIsFree(Number(port))))
    stop(
      `${command}: 127.0.0.1:${port} is in use. Stop what holds it, or pick another port: ${command} -- --port ${Number(port) + 1}`,
    );
  // Wrangler appends what it logs, and every line the worker logs (one per request), to a debug file:
  // kept with the local state (git ignores .wrangler), not in ~/.config/.wrangler/logs.
  process.env.WRANGLER_LOG_PATH ??= ".wrangler/logs";
  const admin = {
    username: process.env.WALLET_ADMIN_USERNAME ?? "admin",
    email: process.env.WALLET_ADMIN_EMAIL ?? "admin@example.com",
    password: process.env.WALLET_ADMIN_PASSWORD ?? "wallet-admin",
  };
  for (const [name, part] of [
    ["WALLET_ADMIN_USERNAME", "username"],
    ["WALLET_ADMIN_EMAIL", "email"],
    ["WALLET_ADMIN_PASSWORD", "password"],
  ] as const) {
    const problem = accountProblem({ [part]: admin[part] });
    if (problem) stop(`${command}: ${name}: the local administrator's ${problem}.`);
  }
  // wrangler.toml, checked before the local D1 or .dev.vars is touched (lib/config-check.ts).
  const configText = existsSync(CONFIG) ? readFileSync(CONFIG, "utf8") : undefined;
  const problem = configText === undefined ? `No ${CONFIG} here.` : configProblem(configText);
  if (problem) stop(`${problem}\nCorrect it, then run ${command} again; nothing was changed.`);

  // Guids, the discovery index and the OpenAPI document name the address the API is really on.
  const siteUrl = process.env.SITE_URL ?? `http://127.0.0.1:${port}`;
  // The settings the Worker runs with here, each from the last place that sets it (wrangler dev's
  // order), judged as the Worker judges them: one it would answer 503 for stops here, named with
  // where it is set. JWT_SECRET is .dev.vars's, made or named below.
  const layers: [string, Record<string, unknown>][] = [
    ["wrangler.toml [vars]", topLevelVars(configText!)],
    [`${command}'s default`, DEV_DEFAULTS],
    [".dev.vars", existsSync(".dev.vars") ? parseEnv(readFileSync(".dev.vars", "utf8")) : {}],
    [
      process.env.SITE_URL === undefined ? command : "the SITE_URL environment variable",
      { SITE_URL: siteUrl },
    ],
  ];
  const settings = Object.assign({}, ...layers.map(([, values]) => values));
  const wrong = settingProblems(settings).filter((p) => p.name !== "JWT_SECRET");
  if (wrong.length > 0)
    stop(
      `${wrong
        .map((p) => {
          const [source] = layers.findLast(([, values]) => p.name in values) ?? [
            "wrangler.toml [vars] or .dev.vars",
          ];
          return `${command}: ${p.name} (${source}) is ${p.problem}.`;
        })
        .join("\n")}\nCorrect it, then run ${command} again; nothing was changed.`,
    );

  if (!existsSync(".dev.vars")) {
    // Every secret .env.types declares is named, so wrangler's check that the generated types are
    // fresh passes. Its owner's alone: its token secret signs the local administrator's tokens.
    writeFileSync(".dev.vars", newDevVars(), { mode: 0o600 });
    console.log("Created .dev.vars with a dev-only JWT_SECRET and WEBHOOK_SECRET_KEY.");
  } else {
    // Its secrets are its owner's alone, as one written here is: a file another user of the machine
    // can read gives away the local administrator's token key.
    const mode = statSync(".dev.vars").mode & 0o777;
    if (mode & 0o077) {
      chmodSync(".dev.vars", 0o600);
      console.log(
        `Made .dev.vars readable by its owner alone (mode 0600; it was 0${mode.toString(8)}): it holds secrets.`,
      );
    }
    // The Worker answers 503 service_not_configured without a usable JWT_SECRET (src/settings.ts).
    const {
      jwtSecret: secret,
      webhookKeyUsable,
      webhookKeySet,
    } = devSecrets(readFileSync(".dev.vars", "utf8"));
    // An empty one is none (the later line wins); a short one set by hand is named, not replaced.
    if (secret === undefined || secret.trim() === "") {
      appendFileSync(".dev.vars", `\nJWT_SECRET=${randomBytes(32).toString("hex")}\n`);
      console.log(
        `Added a dev-only JWT_SECRET to .dev.vars (${secret === undefined ? "it had none" : "its own was empty"}).`,
      );
    } else if (!usableJwtSecret(secret))
      console.warn(
        `JWT_SECRET in .dev.vars has ${secret.trim().length} characters; the service needs at least ` +
          `${JWT_SECRET_MIN_LENGTH} and answers 503 until then. Replace it, e.g. with: openssl rand -hex 32`,
      );
    // Webhooks answer 503 without a usable one (docs/events.md#secrets): one missing or too short
    // is added (the later line wins).
    if (!webhookKeyUsable) {
      appendFileSync(".dev.vars", `\nWEBHOOK_SECRET_KEY=${randomBytes(32).toString("hex")}\n`);
      console.log(
        `Added a dev-only WEBHOOK_SECRET_KEY to .dev.vars (${webhookKeySet ? `its own was shorter than ${WEBHOOK_SECRET_KEY_MIN_LENGTH} characters` : "it had none"}).`,
      );
    }
  }

  // One local D1 open for the seed's statements, closed before the server opens it.
  const local = await migratedLocalD1();
  console.log("Local D1 migrated.");
  const seeded = await seed(local.run, admin).finally(local.close);
  const { devAdminExists, devEmailTaken, adminCanSignIn } = seeded;
  console.log(seedLine(admin, seeded));
  console.log(
    seeded.demoCreated
      ? 'Demo wallet "ngn" (Naira Wallet, ₦, 2 decimals) created.'
      : "The local database has wallets already: no demo wallet added.",
  );

  const devVars = readFileSync(".dev.vars", "utf8");
  const mailLine = devMailOutbox(devVars)
    ? `Mail (verification links, reset codes) is kept in the outbox: http://127.0.0.1:${port}/wallet-admin/outbox`
    : `Mail goes by MAIL_TRANSPORT=${devValue(devVars, "MAIL_TRANSPORT")} (.dev.vars).`;
  const localHooks = flagOn(devValue(devVars, "WEBHOOK_ALLOW_LOCAL"))
    ? "allowed"
    : "refused (WEBHOOK_ALLOW_LOCAL in .dev.vars)";

  const base = `http://127.0.0.1:${port}/wp-json/wallet/v1`;
  console.log(`
Wallet API on ${base}${serve ? " (the deploy bundle under Miniflare alone, as production runs it)" : ""}
${devAdminExists ? "Sign in (dev-only credentials):" : adminCanSignIn ? "Sign in as one of the site's administrators, with its own password:" : "Sign in, once admin:create made one, as that administrator:"}
  curl -s ${base}/users/login -H 'Content-Type: application/json' \\
    -d '{"user_email":"${(devEmailTaken && adminCanSignIn) || devAdminExists ? admin.email : "<its e-mail>"}","user_password":"${devAdminExists ? admin.password : "<its password>"}"}'
Then send the access_token as "Authorization: Bearer <token>".
Operator console: http://127.0.0.1:${port}/wallet-admin/${devAdminExists ? ` (sign in with ${admin.email} / ${admin.password})` : ""}
${mailLine}
Webhooks (docs/events.md) run on a local queue; receivers on http://127.0.0.1 or localhost are ${localHooks},
retries start after ${retryBaseS(devValue(devVars, "WEBHOOK_RETRY_BASE_S"))} s, ${serve ? "and the cron's sweep does not run here (npm run dev runs it)" : "and the outbox is swept every minute"}: http://127.0.0.1:${port}/wallet-admin/webhooks
`);

  // The deploy bundle under Miniflare alone, on the same local state (.wrangler/state/v3) and with the
  // same vars: .dev.vars's, and the dev defaults it leaves unset.
  const served = () =>
    startBenchWorker(
      {
        config: "wrangler.toml",
        port: Number(port),
        persist: ".wrangler/state",
        vars: { ...DEV_DEFAULTS, ...parseEnv(devVars), SITE_URL: siteUrl },
        logs: !flags.quiet,
      },
      { stdio: ["ignore", "inherit", "inherit"] },
    );

  const child = serve
    ? served()
    : startWranglerDev(
        [
          "--ip",
          "127.0.0.1",
          "--port",
          port,
          // Its own inspector port, so two dev servers (or a bench) do not clash on 9229.
          "--inspector-port",
          String(await freePort()),
          "--var",
          `SITE_URL:${siteUrl}`,
          // Mail to the dev outbox, webhooks to a receiver on this machine retried soon, unless .dev.vars
          // says otherwise (docs/configuration.md#local-development).
          ...devVarArgs(devVars),
          // Miniflare runs the queue but not the cron: /__scheduled lets this script run the sweep.
          "--test-scheduled",
          "--show-interactive-dev-session=false",
        ],
        {
          detached: false,
        },
      );
  if (serve)
    console.log(`Ready on http://127.0.0.1:${port} once the bundle is built (a few seconds).`);
  // The cron's sweep, every minute as deployed (wrangler.toml [triggers]): an endpoint left behind (a
  // nudge lost when the server stopped between a commit and its send) is delivered within a minute.
  const sweep = serve
    ? undefined
    : setInterval(() => {
        fetch(`http://127.0.0.1:${port}/__scheduled?cron=*+*+*+*+*`).catch(() => undefined);
      }, 60_000);
  // The served bundle runs in a process group of its own (its workerd with it): the whole group goes.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => (serve ? process.kill(-child.pid!, signal) : child.kill(signal)));
  // Its status is the tool's; with the sweep stopped nothing else holds the process.
  child.on("exit", (code) => {
    clearInterval(sweep);
    process.exitCode = code ?? 0;
  });
});

/**
 * The local administrator and the demo wallet, each only into a database without one, and how the
 * database stood for what `seedLine` says.
 */
async function seed(
  run: RunSql,
  admin: AdminAccount,
): Promise<SeedOutcome & { demoCreated: boolean }> {
  // Only into a database without an administrator: an imported site's own administrators sign in
  // with their WordPress passwords, and a local one would take the user id a later import needs.
  const { created } = await ensureAdmin({ ...admin, firstOnly: true }, run);
  // An administrator of the dev e-mail already there (an earlier run's, or an imported site's that
  // uses it) is told to sign in with the dev password only if that password is still its own.
  const [existing] = created
    ? []
    : ((await run(
        `SELECT password_hash FROM users WHERE role = 'administrator' AND email = ${sqlLiteral(admin.email)} COLLATE NOCASE`,
      )) as { password_hash: string }[]);
  const devAdminExists =
    created ||
    (existing !== undefined && (await signsInWith(existing.password_hash, admin.password)));
  const adminCanSignIn =
    devAdminExists ||
    (
      await run(
        `SELECT 1 FROM users WHERE role = 'administrator' AND ${PASSWORD_USABLE_SQL} LIMIT 1`,
      )
    ).length > 0;
  const demoCreated = (await run(demoWalletSql(Date.now()))).length > 0;
  return {
    created,
    devAdminExists,
    devEmailTaken: existing !== undefined,
    adminCanSignIn,
    demoCreated,
  };
}

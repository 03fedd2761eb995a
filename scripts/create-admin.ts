// `npm run admin:create -- (--remote|--local) --username NAME --email ADDRESS`: another
// administrator (`npm run deploy` makes the first). The password comes from WALLET_ADMIN_PASSWORD
// or is asked for on a terminal (not shown, asked twice); never a flag, never a default.
import { parseArgs } from "node:util";
import { accountProblem, ensureAdmin } from "./lib/admin";
import { askPassword } from "./lib/deploy-admin";
import { runMain, stop } from "./lib/exit";
import { wranglerSql } from "./lib/wrangler";

const USAGE = "usage: npm run admin:create -- (--remote|--local) --username NAME --email ADDRESS";

await runMain(async () => {
  let values: {
    remote?: boolean;
    local?: boolean;
    username?: string;
    email?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        remote: { type: "boolean" },
        local: { type: "boolean" },
        username: { type: "string" },
        email: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    stop(`${(error as Error).message}\n${USAGE}`, 2);
  }
  if (values.help) {
    console.log(
      `${USAGE}\nThe password: WALLET_ADMIN_PASSWORD, else asked on a terminal (docs/deploying.md).`,
    );
    return;
  }
  const { username, email } = values;
  if (!username || !email || values.remote === values.local) stop(USAGE, 2);
  const given = accountProblem({ username, email });
  if (given) stop(`${given}; nothing changed.`, 2);

  let password = process.env.WALLET_ADMIN_PASSWORD;
  delete process.env.WALLET_ADMIN_PASSWORD;
  if (!password) {
    if (process.stdin.isTTY !== true)
      stop("No password: set WALLET_ADMIN_PASSWORD (no terminal to ask on); nothing changed.", 2);
    password = await askPassword();
  }
  const weak = accountProblem({ password });
  if (weak) stop(`${weak}; nothing changed.`, 2);

  let result: Awaited<ReturnType<typeof ensureAdmin>>;
  try {
    result = await ensureAdmin(
      { username, email, password },
      wranglerSql(values.remote ? "--remote" : "--local"),
    );
  } catch (error) {
    const local = values.local && /no such table/.test((error as Error).message);
    stop(
      `Creating the administrator failed; nothing changed.\n${(error as Error).message}` +
        (local ? "\nThe local database has no tables yet: run npm run db:migrate -- --local." : ""),
    );
  }
  // A refusal is a failure to a script that runs this (CI): it exits 1, as a failed insert does.
  if (!result.created)
    stop(
      "That username or e-mail names an existing user (as a username or an e-mail), or the username is an e-mail address other than --email; nothing changed.",
    );
  console.log(`Administrator ${username} created (id ${result.id}).`);
});

import { Hono } from "hono";
import type { AppEnv } from "../env";
import { send } from "../http/envelope";
import { routeIndex } from "../http/rest-index";
import { requireSettings } from "../http/settings";
import { compatUserDelete, compatWalletDelete } from "./admin-deletes";
import { COMPAT_ROUTES, compatNamespace } from "./config";
import { compatCredits, compatDebits } from "./entries";
import { compatCreditList, compatDebitList, compatTransferList, compatWalletList } from "./lists";
import { compatLogin } from "./login";
import { compatTransactions } from "./transactions";
import { compatTransfers } from "./transfers";
import { userWalletBalance } from "./user-wallet-balance";
import { userWalletBalanceMulti } from "./user-wallet-balance-multi";
import { usersCreate } from "./users-create";
import { usersRead } from "./users-read";
import { compatVerifyEmail } from "./verify-email";
import { compatWalletCreate } from "./wallets-create";

/**
 * The Rimplenet 1.1.31 dialect, mounted at `/wp-json/:ns/v1`. Routes are built once while the env
 * is per request, so the namespace's name is checked here on every request: any other first segment
 * (or the dialect switched off) is the same 404 as any unknown path. Paths arrive lowercased
 * (app.ts), so the name matches case-insensitively. `/wp-json/wallet/v1/...` never gets here
 * unmatched by its own routes with a name that passes: config.ts refuses that name.
 */
export const compatRoutes = new Hono<AppEnv>({ strict: false })
  .use(async (c, next) => {
    const namespace = compatNamespace(c.env);
    if (namespace === null || c.req.param("ns") !== namespace) return c.notFound();
    await next();
  })
  .get("/", (c) => {
    const namespace = `${compatNamespace(c.env)}/v1`;
    return send(c, 200, { namespace, routes: routeIndex(namespace, COMPAT_ROUTES) });
  })
  // Users and login answer in envelope B, a missing setting too.
  .use("/users/*", async (c, next) => {
    c.set("envelope", "B");
    await next();
  })
  // Every route below the index needs the service's settings: 503 in its envelope until they are set.
  .use(requireSettings)
  .route("/credits", compatCredits)
  .route("/credits", compatCreditList)
  .route("/debits", compatDebits)
  .route("/debits", compatDebitList)
  .route("/transfers", compatTransfers)
  .route("/transfers", compatTransferList)
  .route("/wallets", compatWalletList)
  .route("/wallets", compatWalletCreate)
  .route("/wallets", compatWalletDelete)
  .route("/verify-email-address", compatVerifyEmail)
  .route("/transactions", compatTransactions)
  .route("/user-wallet-balance/multi", userWalletBalanceMulti)
  .route("/user-wallet-balance", userWalletBalance)
  .route(
    "/users",
    new Hono<AppEnv>()
      .route("/login", compatLogin)
      .route("/", usersRead)
      .route("/", compatUserDelete)
      .route("/", usersCreate),
  );

import { Hono } from "hono";
import type { AppEnv } from "../env";
import { send } from "../http/envelope";
import { defineRoute, mountRoutes, namespaceRoutes, type Route } from "../http/route";
import { compatNamespace } from "../settings";
import { compatUserDelete, compatWalletDelete } from "./admin-deletes";
import { compatCredits, compatDebits } from "./entries";
import {
  compatCreditList,
  compatDebitList,
  compatTransferList,
  compatWalletList,
  compatWalletOne,
} from "./lists";
import { compatLogin } from "./login";
import { compatTransactions } from "./transactions";
import { compatTransfers } from "./transfers";
import { userWalletBalance } from "./user-wallet-balance";
import { userWalletBalanceMulti } from "./user-wallet-balance-multi";
import { usersCreate } from "./users-create";
import { usersRead } from "./users-read";
import { compatVerifyEmail } from "./verify-email";
import { compatWalletSummary } from "./wallet-summary";
import { compatWalletCreate } from "./wallets-create";

/**
 * The Rimplenet 1.1.31 dialect's routes (paths after `/wp-json/<ns>/v1`), each declared beside its
 * handler in src/compat/ and mounted, authenticated and indexed by the same mechanism as wallet/v1
 * (http/route.ts), in the plugin's envelopes and refusals.
 */
export const COMPAT_ROUTES: readonly Route[] = [
  compatCreditList,
  compatCredits,
  compatDebitList,
  compatDebits,
  compatTransactions,
  userWalletBalance,
  userWalletBalanceMulti,
  usersRead,
  usersCreate,
  compatLogin,
  compatUserDelete,
  compatTransferList,
  compatTransfers,
  compatWalletList,
  compatWalletOne,
  compatWalletCreate,
  compatWalletDelete,
  compatWalletSummary,
  compatVerifyEmail,
];

const indexRoute = defineRoute(
  { path: "/", method: "GET", summary: "This namespace's routes", auth: "none", envelope: "index" },
  (c) => {
    const namespace = `${compatNamespace(c.env)}/v1`;
    return send(c, 200, { namespace, routes: namespaceRoutes(namespace, COMPAT_ROUTES) });
  },
);

/**
 * The dialect, mounted at `/wp-json/:ns/v1`. Routes are built once while the env is per request,
 * so the namespace's name is checked here on every request: any other first segment (or the
 * dialect switched off) is the same 404 as any unknown path. Paths arrive lowercased
 * (http/wp-core.ts wordpressRequest), so the name matches case-insensitively.
 * `/wp-json/wallet/v1/...` never gets here unmatched by its own routes with a name that passes:
 * settings.ts compatNamespace refuses that name.
 */
export const compatRoutes = new Hono<AppEnv>({ strict: false })
  .use(async (c, next) => {
    const namespace = compatNamespace(c.env);
    if (namespace === null || c.req.param("ns") !== namespace) return c.notFound();
    c.set("pluginDialect", true);
    await next();
  })
  .route("/", mountRoutes([indexRoute, ...COMPAT_ROUTES]));

// One throwaway `wrangler dev` for the client tests (npm run test:clients): migrated D1, the
// seeded administrator, on a free 127.0.0.1 port; each client signs in and builds its own wallet
// and users, so the tests share nothing else.
import { randomBytes } from "node:crypto";
import { ADMIN, startServer } from "../../scripts/lib/server";

export const startClientServer = (vars: Record<string, string> = {}) =>
  startServer({ logLevel: "warn", vars });
export { ADMIN };

/** A name nothing else in this run uses (wallet ids: a letter, then a-z0-9_). */
export const unique = (prefix: string) => `${prefix}${randomBytes(5).toString("hex")}`;

// The console's own env: the app's, with the signed-in operator and this app's fetch for the
// console's in-process API calls (types only, so every console module can name it).
import type { Context } from "hono";
import type { Principal } from "../auth/principal";
import type { AppEnv } from "../env";

export type Session = { token: string; principal: Principal; csrf: string };

/** This app's own fetch: the console calls the API in-process through it (console/api.ts). */
export type Fetch = (
  request: Request,
  env: AppEnv["Bindings"],
  ctx?: Context["executionCtx"],
) => Response | Promise<Response>;

/** The console's pages: the app's env, and the signed-in administrator once its middleware ran. */
export type ConsoleEnv = {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { session: Session; fetch: Fetch };
};

// The console's own env: the app's, with the signed-in operator (types only, so every console
// module can name it).
import type { Principal } from "../auth/principal";
import type { AppEnv } from "../env";

export type Session = { token: string; principal: Principal; csrf: string };

/** The console's pages: the app's env, and the signed-in administrator once its middleware ran. */
export type ConsoleEnv = {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { session: Session };
};

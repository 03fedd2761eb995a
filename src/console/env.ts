// The console's own env: the app's, with the signed-in operator (types only, so every console
// module can name it).
import type { Principal } from "../auth/principal";
import type { AppEnv } from "../env";

/** A posted form's fields by name. */
export type Fields = Record<string, string>;

export type Session = { principal: Principal; csrf: string };

/**
 * The console's pages: the app's env, and once its gate ran the signed-in administrator and the
 * posted form's fields (none but on a POST).
 */
export type ConsoleEnv = {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { session: Session; form: Fields };
};

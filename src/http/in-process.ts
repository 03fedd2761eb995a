// The operator console calls the API in this same isolate (src/console/api.ts), never over HTTP. Its
// calls carry what the console has already verified on the env object handed to `app.fetch`, under a
// symbol: no request from outside can name it (a header, a cookie or a query can only carry text), so
// the API's console audience never exists on the wire. See docs/security.md#sessions.
import type { Principal } from "../auth/principal";
import type { Audience } from "../db/sessions";
import type { Bindings } from "../env";

const IN_PROCESS = Symbol("in-process console call");

export type InProcessCall = {
  /** The signed-in operator, verified from the console's cookie (its session live). */
  principal?: Principal;
  /** The kind of token `POST /users/login` issues to this call. */
  audience: Audience;
};

/** The env of an in-process call: the same bindings, and what the console vouches for. */
export const inProcessEnv = (env: Bindings, call: InProcessCall): Bindings =>
  ({ ...env, [IN_PROCESS]: call }) as Bindings;

/** What an in-process call carries; undefined for every request that came over HTTP. */
export const inProcessCall = (env: Bindings): InProcessCall | undefined =>
  (env as Bindings & { [IN_PROCESS]?: InProcessCall })[IN_PROCESS];

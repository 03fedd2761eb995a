import type { Context } from "hono";
import type { Principal } from "../auth/principal";
import { API_AUDIENCE } from "../auth/tokens";
import type { AppEnv } from "../env";
import { usableJwtSecret } from "../settings";
import { keyPrincipal } from "../wallet/key-principal";
import { sessionPrincipal } from "../wallet/sessions";
import { isPrintableAscii } from "./decode";
import { type Refusals, serviceNotConfigured } from "./errors";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function jwtSecret(c: { env: AppEnv["Bindings"] }) {
  const secret = c.env.JWT_SECRET;
  // Routes check their settings first (http/settings.ts); no other reader signs with a weak key.
  if (!secret || !usableJwtSecret(secret)) throw serviceNotConfigured(["JWT_SECRET"]);
  return secret;
}

/** What signs and names this service's tokens. */
export const tokenKeys = (c: { env: AppEnv["Bindings"] }) => ({
  secret: jwtSecret(c),
  issuer: c.env.JWT_ISSUER,
});

async function principalFrom(c: Context<AppEnv>, header: string): Promise<Principal | null> {
  // `<scheme> <token>`: two words split by white space (the header arrives trimmed). The plugin
  // took the second word of `explode(" ", …)` and ignored the rest, and so does its dialect.
  const [scheme, token, ...rest] = header.split(/[ \t]+/);
  if (!scheme || !token || (rest.length > 0 && !c.get("pluginDialect"))) return null;
  const kind = scheme.toLowerCase();
  // Only API tokens: a console cookie's token is refused here like any foreign token.
  if (kind === "bearer" && JWT_SHAPE.test(token))
    return sessionPrincipal(c.var.service, token, API_AUDIENCE);
  if (kind !== "bearer" && kind !== "key" && kind !== "basic") return null;
  return keyPrincipal(c.var.service, token);
}

/**
 * The caller the `Authorization` header names, set as `principal`; else the refusal in the route's
 * dialect (contract section 2 here, the plugin's texts in src/compat/).
 */
export async function requireCredentials(
  c: Context<AppEnv>,
  refusals: Refusals,
): Promise<Principal> {
  // Headers hold a value with HTTP's white space (space, tab) already cut from its ends; any other
  // byte there, a no-break space included, is part of the credential and fails the ASCII check.
  const header = c.req.header("authorization");
  if (!header) throw refusals.missing();
  // Bytes outside ASCII can be no credential: the same 401 as any other (contract section 2).
  const principal = isPrintableAscii(header) ? await principalFrom(c, header) : null;
  if (!principal) throw refusals.invalid();
  c.set("principal", principal);
  return principal;
}

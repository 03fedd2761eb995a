import { NAMESPACE } from "../http/rest-index";

type CompatVars = { COMPAT_NAMESPACE?: string; COMPAT_PUBLIC_READS?: string };

const NAME = /^[a-z0-9_-]{1,64}$/;

/**
 * The compatibility namespace's first segment (`rimplenet` serves `/wp-json/rimplenet/v1`), or null
 * when off. Routes are built once, so this is read per request from the env. A name that is not one
 * path segment, or that would shadow the contract's own namespace, leaves the dialect off.
 */
export function compatNamespace(env: CompatVars): string | null {
  const name = (env.COMPAT_NAMESPACE ?? "").trim().toLowerCase();
  if (!NAME.test(name) || `${name}/v1` === NAMESPACE) return null;
  return name;
}

/** `COMPAT_PUBLIC_READS=true`: balances are readable without credentials, as the plugin had them. */
export const publicReads = (env: CompatVars) =>
  (env.COMPAT_PUBLIC_READS ?? "").trim().toLowerCase() === "true";

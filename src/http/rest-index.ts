// The contract's namespace, and the names a route's path declares.
import { CONTRACT_NAMESPACE } from "../settings";

/** The contract's namespace: `/wp-json/wallet/v1/...`. */
export const NAMESPACE = `${CONTRACT_NAMESPACE}/v1`;

/** The `{name}`s of a route's path, in order (read on every request of the route: kept). */
export const pathNames = (path: string) => {
  let names = namesOf.get(path);
  if (!names) namesOf.set(path, (names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)));
  return names;
};
const namesOf = new Map<string, string[]>();

import { flagOn } from "../settings";

type CompatVars = { COMPAT_PUBLIC_READS?: string };

/**
 * `COMPAT_PUBLIC_READS=true`: balances, and every user's transactions, are readable without
 * credentials, as the plugin had them (docs/compat.md).
 */
export const publicReads = (env: CompatVars) => flagOn(env.COMPAT_PUBLIC_READS);

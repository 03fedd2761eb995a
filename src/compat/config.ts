import { varText } from "../settings";

type CompatVars = { COMPAT_PUBLIC_READS?: string };

/** `COMPAT_PUBLIC_READS=true`: balances are readable without credentials, as the plugin had them. */
export const publicReads = (env: CompatVars) =>
  varText(env.COMPAT_PUBLIC_READS).trim().toLowerCase() === "true";

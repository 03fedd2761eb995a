import { env } from "cloudflare:workers";
import { createApp } from "../src/app";
import type { Json } from "./helpers";

/** The dialect on, with the plugin's public balance reads. */
export const ON = { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: "true" } as const;
/** The dialect on, balances behind this service's credentials. */
export const GUARDED = { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: "false" } as const;

export type CompatVars = { COMPAT_NAMESPACE?: string; COMPAT_PUBLIC_READS?: string };

/** One request with the compatibility vars set for it (wrangler.toml ships them off). */
export async function compatCall(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; vars?: CompatVars } = {},
) {
  const res = await createApp().request(
    path,
    { method, headers: options.headers, body: options.body },
    { ...env, ...options.vars },
  );
  const text = await res.text();
  let body: Json = {};
  try {
    body = JSON.parse(text);
  } catch {
    // left empty: assertions on `text` say what came back
  }
  return { status: res.status, headers: res.headers, text, body };
}

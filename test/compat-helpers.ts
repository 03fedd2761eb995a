import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { type Json, sharedApp } from "./helpers";

/** The dialect on, with the plugin's public balance reads. */
export const ON = { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: "true" } as const;
/** The dialect on, balances behind this service's credentials. */
export const GUARDED = { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: "false" } as const;

export type CompatVars = {
  COMPAT_NAMESPACE?: string;
  COMPAT_PUBLIC_READS?: string;
  SITE_TIMEZONE?: string;
};

/** One request with the compatibility vars set for it (wrangler.toml ships them off). */
export async function compatCall(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; vars?: CompatVars } = {},
) {
  const res = await sharedApp().request(
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

/** Values that differ run to run in the plugin too: only their form is compared. */
const VOLATILE: Record<string, RegExp> = {
  "data.user_created_at": /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
};

const typeOf = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "array" : typeof x);

/** Asserts same keys in the same order, same types everywhere, same values outside `skip`. */
export function compareShape(actual: unknown, expected: unknown, skip: Set<string>, path = "") {
  const where = path || "(body)";
  expect(typeOf(actual), `type at ${where}`).toBe(typeOf(expected));
  if (Array.isArray(expected)) {
    expect((actual as unknown[]).length, `length at ${where}`).toBe(expected.length);
    expected.forEach((item, i) => {
      compareShape((actual as unknown[])[i], item, skip, `${path}[${i}]`);
    });
  } else if (typeOf(expected) === "object") {
    const e = expected as Json;
    const a = actual as Json;
    expect(Object.keys(a), `keys at ${where}`).toEqual(Object.keys(e));
    for (const key of Object.keys(e))
      compareShape(a[key], e[key], skip, path ? `${path}.${key}` : key);
  } else if (VOLATILE[path]) {
    expect(actual, `form at ${where}`).toMatch(VOLATILE[path]!);
  } else if (!skip.has(path)) {
    expect(actual, `value at ${where}`).toBe(expected);
  }
}

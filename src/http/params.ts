import type { Context } from "hono";
import type { AppEnv } from "../env";
import { plainDecimal } from "../ledger/money";

/** Raised for a body that claims JSON but does not parse; answered as WordPress does. */
export class InvalidJsonError extends Error {}

type Params = Record<string, unknown>;

/**
 * JSON numbers a double cannot hold exactly (1.00000000000000001, 12345678901234567890) are passed
 * on as their decimal text, so money is read from what the client wrote, never from a rounded float.
 */
function exactNumbers(_key: string, value: unknown, context?: { source?: string }) {
  if (typeof value !== "number" || context?.source === undefined) return value;
  const written = plainDecimal(context.source);
  if (written === null) return context.source;
  return written === plainDecimal(String(value)) ? value : written;
}

function fromJson(text: string): Params {
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text, exactNumbers as (key: string, value: unknown) => unknown);
  } catch {
    throw new InvalidJsonError();
  }
  // A body that is not an object supplies nothing; a JSON null counts as a missing field.
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
}

async function fromForm(c: Context<AppEnv>): Promise<Params> {
  try {
    return await c.req.parseBody();
  } catch {
    return {};
  }
}

function fromQuery(url: string): Params {
  // PHP keeps the last of repeated names.
  return Object.fromEntries(new URL(url).searchParams);
}

/**
 * The request's parameters as WordPress merges them: JSON body, then form body, then query string;
 * the first source that has a name wins. Read once per request, after authentication.
 */
export async function readParams(c: Context<AppEnv>): Promise<Params> {
  const cached = c.get("params");
  if (cached) return cached;
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  let body: Params = {};
  // WordPress reads a body on any method, GET included.
  if (/^application\/([a-z.+-]*\+)?json/.test(type)) body = fromJson(await c.req.text());
  else if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) body = await fromForm(c);
  const params = { ...fromQuery(c.req.url), ...body };
  c.set("params", params);
  return params;
}

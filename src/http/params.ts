import type { Context } from "hono";
import type { AppEnv } from "../env";
import { plainDecimal } from "../wallet/rules";
import {
  asciiHeader,
  checkJsonShape,
  decodeUtf8,
  mediaType,
  queryOf,
  unreadableBody,
  urlPairs,
} from "./decode";
import { MalformedRequest } from "./errors";
import { phpVars } from "./php-vars";
import { pathNames } from "./rest-index";
import { restRoutePath } from "./wp-core";

/** Raised for a body that claims JSON but does not parse; answered as WordPress does. */
export class InvalidJsonError extends Error {}

export type Params = Record<string, unknown>;

/**
 * A JSON string, value or key, must be well-formed Unicode: a lone surrogate escape (`"\ud800"`)
 * would reach D1 as U+FFFD, and json_decode refuses the whole body for it, wherever it stands.
 */
function checkText(text: string) {
  if (!text.isWellFormed()) throw new InvalidJsonError();
}

/**
 * JSON numbers a double cannot hold exactly (1.00000000000000001, 12345678901234567890) are passed
 * on as their decimal text, so money is read from what the client wrote, never from a rounded float.
 * Keys and strings go through checkText.
 */
function exactValues(key: string, value: unknown, context?: { source?: string }) {
  checkText(key);
  if (typeof value === "string") checkText(value);
  if (typeof value !== "number" || context?.source === undefined) return value;
  const written = plainDecimal(context.source);
  if (written === null) return context.source;
  if (written === "-0") return 0; // -0, -0.0, -0e5: zero, which no field here tells from 0
  return written === plainDecimal(String(value)) ? value : written;
}

/**
 * What JSON.parse read from a text: the value, which of its members were numbers kept as their
 * decimal text, and which were a negative zero written as a float (`-0.0`, `-0e0`), which
 * `exactValues` reads as 0 but PHP's json_decode as the float -0, whose text is "-0".
 */
type ParsedBody = {
  value: unknown;
  numberTexts: ReadonlySet<string>;
  negativeZeros: ReadonlySet<string>;
};
const NO_MEMBERS: ReadonlySet<string> = new Set();

/** A JSON number literal that is a float (a point or an exponent) of value zero, negative. */
const negativeZeroFloat = (literal: string) =>
  literal.startsWith("-") && /[.eE]/.test(literal) && plainDecimal(literal) === "-0";

/**
 * What JSON.parse with `exactValues` reads from `text` (a JSON syntax error is thrown as is), and
 * which members of the object it is were numbers kept as their decimal text.
 */
function parseMarking(text: string): ParsedBody {
  const kept: [holder: object, key: string][] = [];
  const zeros: [holder: object, key: string][] = [];
  const value: unknown = JSON.parse(text, function (
    this: object,
    key: string,
    read: unknown,
    context?: { source?: string },
  ) {
    const written = exactValues(key, read, context);
    if (typeof read === "number" && typeof written === "string") kept.push([this, key]);
    if (read === 0 && context?.source !== undefined && negativeZeroFloat(context.source))
      zeros.push([this, key]);
    return written;
  } as (key: string, value: unknown) => unknown);
  const members = (found: [object, string][]) =>
    new Set(found.filter(([o]) => o === value).map(([, key]) => key));
  return { value, numberTexts: members(kept), negativeZeros: members(zeros) };
}

/** What JSON.parse with `exactValues` reads from `text` (a JSON syntax error is thrown as is). */
export const parseExactly = (text: string): unknown => parseMarking(text).value;

/**
 * Every number `text` could hold, and digits inside its strings too (which only makes
 * `numbersExact` answer false more often): a JSON number is always one whole match, since it
 * starts after a character the pattern never takes and ends before one.
 */
const NUMBER_TEXT = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Whether `exactValues` would keep every number of `text` as the double JSON.parse reads. */
function numbersExact(text: string) {
  for (const [literal] of text.matchAll(NUMBER_TEXT)) {
    const written = plainDecimal(literal);
    if (written === null || written !== plainDecimal(String(Number(literal)))) return false;
  }
  return true;
}

/** `exactValues`'s check of every string, keys included. */
function checkStrings(value: unknown) {
  if (typeof value === "string") checkText(value);
  else if (Array.isArray(value)) for (const item of value) checkStrings(item);
  else if (value !== null && typeof value === "object")
    for (const [key, item] of Object.entries(value)) {
      checkText(key);
      checkStrings(item);
    }
}

/**
 * The same as `parseExactly`, for less CPU: JSON.parse with a reviver that reads each
 * value's source text costs more than the rest of a credit's decoding. When every number in the
 * text is one a double holds as written (nearly every body: ids and amounts of a few digits), the
 * reviver would keep every number as parsed, so the text is parsed plainly and only its strings
 * are checked; otherwise it goes through the reviver. test/request-cpu.test.ts checks both agree.
 */
export const parseJsonBody = (text: string): unknown => readJsonBody(text).value;

function readJsonBody(text: string): ParsedBody {
  if (!numbersExact(text)) return parseMarking(text);
  const value: unknown = JSON.parse(text);
  checkStrings(value);
  return { value, numberTexts: NO_MEMBERS, negativeZeros: NO_MEMBERS };
}

const PHP_INT_MAX = 2n ** 63n - 1n;

/**
 * A JSON body's members as PHP's json_decode held them, for the plugin's dialect: a number kept
 * here as its decimal text (so that an amount is read from its digits) is the double PHP made of
 * it where PHP held no integer and lost what was written: past a double's range ±INF (PHP's `INF`,
 * no amount, no id), an integer past PHP_INT_MAX a float (`9.2233720368548E+18`, no id). A fraction
 * a double rounds stays as written. A negative zero written as a float (`-0.0`) is -0, whose
 * text PHP writes "-0" (no request_id, no user id); `-0` itself was PHP's integer 0.
 */
function asPhpDecoded(
  body: Params,
  { numberTexts, negativeZeros }: Omit<ParsedBody, "value">,
): Params {
  for (const key of negativeZeros) if (body[key] === 0) body[key] = -0;
  for (const key of numberTexts) {
    const text = body[key];
    if (typeof text !== "string") continue;
    const n = Number(text);
    const integer = /^-?[0-9]+$/.test(text);
    if (
      !Number.isFinite(n) ||
      (integer
        ? BigInt(text) > PHP_INT_MAX || BigInt(text) < -PHP_INT_MAX - 1n
        : Math.abs(n) >= 2 ** 63)
    )
      body[key] = n;
  }
  return body;
}

/**
 * A JSON body's parameters. A body json_decode refuses, for its syntax or for what its text holds
 * (invalid UTF-8, a lone surrogate escape), is WordPress's rest_invalid_json; the service's own
 * limits (checkJsonShape) are named.
 */
function fromJson(bytes: ArrayBuffer | Uint8Array, phpNumbers: boolean): Params {
  let text: string;
  try {
    text = decodeUtf8(bytes, "body");
  } catch {
    throw new InvalidJsonError();
  }
  // WordPress reads an empty body as none, and any other with json_decode: white space alone, or a
  // byte order mark before the JSON, does not parse.
  if (text === "") return {};
  checkJsonShape(text);
  let parsed: ParsedBody;
  try {
    parsed = readJsonBody(text);
  } catch {
    throw new InvalidJsonError();
  }
  const body = parsed.value;
  // A body that is not an object supplies nothing; a JSON null counts as a missing field.
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  const params = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
  return phpNumbers ? asPhpDecoded(params, parsed) : params;
}

/** A `rest_route` parameter refused: a form's not the query's, or one naming another route. */
export const ROUTE_REFUSED = {
  differs: "rest_route differs from the query's rest_route",
  elsewhere: "rest_route names another route than the one this request was sent to",
} as const;

/** What a multipart body the runtime cannot read is refused with. */
export const UNREADABLE_MULTIPART =
  "the multipart body could not be read (a boundary named in the Content-Type, each part named by its Content-Disposition, a closing boundary)";

async function fromMultipart(
  bytes: ArrayBuffer | Uint8Array,
  type: string,
  plugin: boolean,
): Promise<Params> {
  if (bytes.byteLength === 0) return {};
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    // Read as none, its fields would be dropped unseen: a note lost, a filter answered unfiltered,
    // the query's value taken for one the body sent. The runtime's parser is stricter than PHP's (an
    // unquoted name, a part left unclosed), so the client is told rather than guessed for.
    throw new MalformedRequest("body", UNREADABLE_MULTIPART);
  }
  // As PHP registers `$_POST`. PHP puts a file part in `$_FILES`, which WordPress reads no
  // parameter from: in the plugin's dialect it is no field at all (a text part of its name
  // stands). On wallet/v1 a file where text belongs is refused by the field's validator.
  const parts = plugin ? [...form].filter(([, value]) => typeof value === "string") : form;
  return phpVars(parts, "body");
}

/**
 * A source's parameters without its `rest_route`, which names the route it was sent to. WordPress
 * routes by `$_POST['rest_route']`, then `$_GET`'s, before the path (and refuses with 400 a form's
 * that is not the same text as the query's); the route is chosen by the path here, or by a plain
 * permalink's query, before the parameters are read, so one naming any other is refused, never run
 * as the route the path named. `queried` is the query's `rest_route` text, which a form's must equal.
 */
function withoutRoute(
  c: Context<AppEnv>,
  params: Params,
  part: "query" | "body",
  queried: unknown,
): Params {
  const { rest_route: route, ...rest } = params;
  if (queried !== undefined) {
    if (route !== queried) throw new MalformedRequest(part, ROUTE_REFUSED.differs);
    return rest;
  }
  // A trailing slash names the same route (WordPress's untrailingslashit).
  const trimmed = (path: string) => path.replace(/\/+$/, "");
  if (
    typeof route !== "string" ||
    trimmed(restRoutePath(route)) !== trimmed(new URL(c.req.url).pathname)
  )
    throw new MalformedRequest(part, ROUTE_REFUSED.elsewhere);
  return rest;
}

/**
 * What a route's declared input reads: the request's parameters as WordPress merges them (JSON
 * body, then form body, then query string; the first source that has a parameter wins, whichever
 * shape either sends it in: a form's `user_id[0]` hides the query's `user_id`, as `$_POST` hides
 * `$_GET`; a JSON body's names are its keys as written), then its path's (each matched pattern
 * already held), which win, since the path names what the route acts on. With `pathOnly`, the
 * path's alone; the request is still read, as on every route (contract: a body that claims JSON and
 * does not parse is 400). A query or form is read whole as PHP reads it first (php-vars.ts). Read
 * after authentication. Every byte is read strictly (decode.ts): invalid UTF-8 anywhere is a 400,
 * never a replacement character.
 */
export async function readParams(
  c: Context<AppEnv>,
  path: string,
  pathOnly?: boolean,
): Promise<Params> {
  const contentType = asciiHeader(c.req.raw.headers, "Content-Type") ?? "";
  const type = mediaType(contentType);
  const json =
    type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
  const form = type === "application/x-www-form-urlencoded";
  const multipart = type === "multipart/form-data";
  let body: Params = {};
  // WordPress reads a JSON body on any method, GET included, and a form only where PHP fills
  // $_POST or WP_REST_Request parses one: POST, PUT, PATCH and DELETE (get_parameter_order).
  const formRead = c.req.method !== "GET" && c.req.method !== "HEAD";
  if (json || (formRead && (form || multipart))) {
    const bytes = c.get("streamedBody") ?? (await c.req.arrayBuffer().catch(unreadableBody));
    if (json) body = fromJson(bytes, c.get("pluginDialect") === true);
    else {
      const text = decodeUtf8(bytes, "body");
      body = form
        ? phpVars(urlPairs(text, "body"), "body")
        : await fromMultipart(bytes, contentType, c.get("pluginDialect") === true);
    }
  }
  let query = phpVars(urlPairs(queryOf(c.req.url), "query"), "query");
  // A plain permalink's rest_route named the route and is gone from the query; one left is a path's.
  const queried = c.var.queryRoute ?? query.rest_route;
  if (Object.hasOwn(query, "rest_route")) query = withoutRoute(c, query, "query", undefined);
  if (!json && Object.hasOwn(body, "rest_route")) body = withoutRoute(c, body, "body", queried);
  const named = Object.fromEntries(pathNames(path).map((name) => [name, c.req.param(name) ?? ""]));
  return pathOnly ? named : { ...query, ...body, ...named };
}

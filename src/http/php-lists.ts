// PHP's list syntax in a query or form, read as WordPress reads it, by every route (http/route.ts).
import type * as v from "valibot";
import { JSON_LIMITS } from "./decode";
import type { Params } from "./params";

/**
 * The most pairs of brackets a name is read with (PHP's max_input_nesting_level is 64): no deeper
 * than a JSON body may nest a parameter's value. Further ones are not read.
 */
const MAX_DEPTH = JSON_LIMITS.depth - 1;

/** `name[a][b]…`'s name and keys (`[]`'s is ""); null for a name without a closed `[…]`. */
function keysOf(name: string): { base: string; keys: string[] } | null {
  const open = name.indexOf("[");
  if (open <= 0) return null;
  const keys: string[] = [];
  // As PHP reads it: each `[…]` up to its first `]`, until text that is not one (then ignored).
  for (let at = open; name[at] === "[" && keys.length < MAX_DEPTH; ) {
    const close = name.indexOf("]", at);
    if (close === -1) break;
    keys.push(name.slice(at + 1, close));
    at = close + 1;
  }
  return keys.length === 0 ? null : { base: name.slice(0, open), keys };
}

/**
 * A PHP array: its keys in the order they were first set (an integer one as its decimal text), and
 * where `[]` appends, one past the greatest integer key (PHP's next free element).
 */
type PhpArray = { items: Map<string, unknown>; next: number };

const INTEGER_KEY = /^(0|[1-9][0-9]{0,14})$/;

const phpArray = (): PhpArray => ({ items: new Map(), next: 0 });

function put(array: PhpArray, keys: string[], value: unknown) {
  let node = array;
  for (const [i, sent] of keys.entries()) {
    const key = sent === "" ? String(node.next) : sent;
    if (INTEGER_KEY.test(key)) node.next = Math.max(node.next, Number(key) + 1);
    if (i === keys.length - 1) {
      node.items.set(key, value);
      return;
    }
    const inner = node.items.get(key);
    const child = isPhpArray(inner) ? inner : phpArray();
    node.items.set(key, child);
    node = child;
  }
}

const isPhpArray = (value: unknown): value is PhpArray =>
  typeof value === "object" && value !== null && (value as PhpArray).items instanceof Map;

/** A PHP array as JSON holds it: a list when its keys are 0, 1, 2… in order, else an object. */
function plain(value: unknown): unknown {
  if (!isPhpArray(value)) return value;
  const entries = [...value.items].map(([key, item]) => [key, plain(item)] as const);
  return entries.every(([key], i) => key === String(i))
    ? entries.map(([, item]) => item)
    : Object.fromEntries(entries);
}

/**
 * PHP reads `name[]=a` (or `name[k]=a`, `name[k][j]=a`) in a query or form as `name` holding an
 * array, which WordPress then refuses as not text. So a declared parameter sent so reaches its rule
 * as that array, and is refused as a JSON list or object is, never dropped: dropped, a filter would
 * answer unfiltered, and a transfer's `request_id[]` would be no key at all. Each array is a list
 * when its keys are 0, 1, 2… in order, else an object keyed as sent (`meta_data[channel]=app` is
 * `{"channel":"app"}`, as the plugin stored it); `[]` appends after the greatest integer key, as
 * PHP does. The plain name wins when both are sent. `POST /batches` reads its
 * `operations[i][field]` names itself (routes/batches/schemas.ts).
 */
export function withLists(schema: v.GenericSchema | undefined, params: Params): Params {
  const entries = schema && "entries" in schema ? (schema.entries as v.ObjectEntries) : undefined;
  if (!entries) return params;
  const arrays = new Map<string, PhpArray>();
  for (const [name, value] of Object.entries(params)) {
    const named = keysOf(name);
    if (!named || !Object.hasOwn(entries, named.base) || Object.hasOwn(params, named.base))
      continue;
    const array = arrays.get(named.base) ?? phpArray();
    arrays.set(named.base, array);
    put(array, named.keys, value);
  }
  if (arrays.size === 0) return params;
  const read = { ...params };
  for (const [base, array] of arrays) read[base] = plain(array);
  return read;
}

// What PHP makes of a query string or form body, which is what WordPress reads: each source's
// pairs registered in order into one array, as php_register_variable_ex registers them into
// `$_GET` or `$_POST`, so the last pair of a parameter wins whatever its shape.
import { C_SPACE } from "../text";
import { JSON_LIMITS, percentDecode } from "./decode";
import { MalformedRequest } from "./errors";

/**
 * The most pairs of brackets a name may have: no deeper than a JSON body may nest a parameter's
 * value. PHP builds up to 64 (max_input_nesting_level) and drops the whole parameter past that, so
 * a deeper name is refused rather than read otherwise.
 */
const MAX_DEPTH = JSON_LIMITS.depth - 1;

/**
 * The most pairs one query or form may hold. PHP registers the first 1000 pairs of a query
 * (max_input_vars; an empty one between two `&` not counted) and 1001 of an urlencoded form (an
 * empty one counted), and drops the rest unseen: a `user_id` after them is not the one WordPress
 * acts on. So more are refused, empty ones counted.
 */
const MAX_INPUT_VARS = 1000;

/** A query or form refused past MAX_INPUT_VARS pairs or MAX_DEPTH brackets, naming its `part`. */
export const PAIRS_REFUSED = {
  count: (part: string) => `${part} holds more than ${MAX_INPUT_VARS} parameters`,
  depth: (part: string) =>
    `a ${part} parameter's name has more than ${MAX_DEPTH} pairs of brackets`,
} as const;

/** A name as PHP registers it: the variable it sets, and the keys of its `[…]`s (`[]`'s is ""). */
type PhpPath = { name: string; keys: readonly string[] };

/**
 * A decoded query or form name as PHP registers it, or null for one it drops (nothing before its
 * first `[`): leading spaces dropped; a NUL its end (PHP reads names as C text); before the first
 * `[`, each space and `.` an `_`; each `[…]` up to its first `]` a key, one white-space character
 * alone in it as none (`a[ ]` appends, as `a[]` does), until text that is not one (then ignored); a
 * first `[` that no `]` closes an `_`, with the spaces, dots and `[` after it. So `txn.type=DEBIT`
 * is the filter `txn_type`, `user[id` is `user_id`, `%5Ba%5D=1` sets nothing. Past MAX_DEPTH keys
 * the rest are not read (phpVars refuses the name).
 */
function phpPath(sent: string): PhpPath | null {
  // Nearly every name is a plain word, which is itself.
  if (!MANGLED.test(sent)) return sent === "" ? null : { name: sent, keys: NO_KEYS };
  let start = 0;
  while (sent[start] === " ") start++;
  const nul = sent.indexOf("\0", start);
  const text = start === 0 && nul === -1 ? sent : sent.slice(start, nul === -1 ? undefined : nul);
  const open = text.indexOf("[");
  const name = (open === -1 ? text : text.slice(0, open)).replace(/[ .]/g, "_");
  if (name === "") return null;
  const keys: string[] = [];
  for (let at = open; at !== -1 && text[at] === "[" && keys.length <= MAX_DEPTH; ) {
    const close = text.indexOf("]", at);
    if (close === -1) break;
    const key = text.slice(at + 1, close);
    keys.push(key.length === 1 && C_SPACE.includes(key) ? "" : key);
    at = close + 1;
  }
  if (open !== -1 && keys.length === 0)
    return { name: `${name}_${text.slice(open + 1).replace(/[ .[]/g, "_")}`, keys };
  return { name, keys };
}

/** What makes PHP register a name otherwise than as written. */
const MANGLED = /[ .[\0]/;

const NO_KEYS: readonly string[] = [];

/**
 * A PHP array: its keys in the order they were first set (an integer one as its decimal text), and
 * where `[]` appends, one past the greatest integer key (PHP's next free element).
 */
type PhpArray = { items: Map<string, unknown>; next: number };

const INTEGER_KEY = /^(0|[1-9][0-9]{0,14})$/;

const phpArray = (): PhpArray => ({ items: new Map(), next: 0 });

const isArray = (value: unknown): value is PhpArray =>
  typeof value === "object" && value !== null && (value as PhpArray).items instanceof Map;

function set(array: PhpArray, key: string, value: unknown) {
  array.items.set(key, value);
  if (INTEGER_KEY.test(key)) array.next = Math.max(array.next, Number(key) + 1);
}

/** The objects `phpVars` made of PHP arrays that are not lists (see `isPhpArray`). */
const built = new WeakSet<object>();

/** A PHP array as JSON holds it: a list when its keys are 0, 1, 2… in order, else an object. */
function plain(value: unknown): unknown {
  if (!isArray(value)) return value;
  const entries = [...value.items].map(([key, item]) => [key, plain(item)] as const);
  if (entries.every(([key], i) => key === String(i))) return entries.map(([, item]) => item);
  const object = Object.fromEntries(entries);
  built.add(object);
  return object;
}

/**
 * Whether a parameter's value is an array PHP built from a query or form's names whose keys are not
 * 0, 1, 2… in order (`operations[0]…&operations[2]…`), which a JSON object never is: a JSON body
 * stays JSON.
 */
export const isPhpArray = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && built.has(value);

/**
 * One source's parameters (a query string's, a form body's) as PHP registers its pairs, in order:
 * a plain name sets or replaces its parameter; `name[k]…` makes it an array (a new one in place of
 * text) and sets the value inside; `[]` appends at the next integer key; a later plain name
 * replaces an array. So `user_id=2&user_id[]=3` is `["3"]`, which WordPress refuses as not text,
 * and `user_id[]=3&user_id=2` is `"2"`. An array is a list when its keys are 0, 1, 2… in order,
 * else an object keyed as sent (`meta_data[channel]=app` is `{"channel":"app"}`). More than
 * MAX_INPUT_VARS pairs, or a name deeper than MAX_DEPTH, is a 400 naming `part`; with `asPhp`
 * (a refused request read only to learn whom it names), PHP's reading: the pairs past the limit
 * and such a name are left out.
 */
export function phpVars(
  pairs: Iterable<readonly [name: string, value: unknown]>,
  part: string,
  asPhp = false,
): Record<string, unknown> {
  const vars = new Map<string, unknown>();
  let count = 0;
  let arrays = false;
  for (const [sent, value] of pairs) {
    if (++count > MAX_INPUT_VARS) {
      if (asPhp) break;
      throw new MalformedRequest(part, PAIRS_REFUSED.count(part));
    }
    const path = phpPath(sent);
    if (!path) continue;
    const { name, keys } = path;
    if (keys.length === 0) {
      vars.set(name, value);
      continue;
    }
    if (keys.length > MAX_DEPTH) {
      if (asPhp) continue;
      throw new MalformedRequest(part, PAIRS_REFUSED.depth(part));
    }
    arrays = true;
    const top = vars.get(name);
    let array = isArray(top) ? top : phpArray();
    vars.set(name, array);
    for (let i = 0; ; i++) {
      const key = keys[i] === "" ? String(array.next) : keys[i]!;
      if (i === keys.length - 1) {
        set(array, key, value);
        break;
      }
      const inner = array.items.get(key);
      const child = isArray(inner) ? inner : phpArray();
      set(array, key, child);
      array = child;
    }
  }
  if (!arrays) return Object.fromEntries(vars);
  return Object.fromEntries([...vars].map(([name, value]) => [name, plain(value)]));
}

/** The parameter a decoded name sets as PHP registers it (` page` and `page[]` set `page`), or null. */
export const phpName = (decoded: string) => phpPath(decoded)?.name ?? null;

/** A query pair's name as PHP registers it, percent-decoded (throws on one that is not UTF-8). */
export function pairPath(raw: string) {
  const eq = raw.indexOf("=");
  return phpPath(percentDecode(eq === -1 ? raw : raw.slice(0, eq), "query"));
}

/**
 * Where `$_GET[name]` comes from, as PHP builds it from a query's pairs: the last pair that sets
 * that parameter (`name` or `name[…]`, each name read by `pathOf`), and whether that pair makes it
 * an array, which names no route or method. Undefined when no pair sets it.
 */
export function lastPairOf(
  pairs: string[],
  name: string,
  pathOf: (raw: string) => PhpPath | null = pairPath,
) {
  const at = pairs.findLastIndex((raw) => pathOf(raw)?.name === name);
  return at === -1 ? undefined : { at, array: pathOf(pairs[at]!)!.keys.length > 0 };
}

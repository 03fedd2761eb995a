// What PHP makes of a query string or form body, which is what WordPress reads: each source's
// pairs registered in order into one array, as php_register_variable_ex registers them into
// `$_GET` or `$_POST`, so the last pair of a parameter wins whatever its shape.
import { JSON_LIMITS, percentDecode } from "./decode";

/**
 * The most pairs of brackets a name is read with (PHP's max_input_nesting_level is 64): no deeper
 * than a JSON body may nest a parameter's value. Further ones are not read.
 */
const MAX_DEPTH = JSON_LIMITS.depth - 1;

/** A name as PHP registers it: the variable it sets, and the keys of its `[…]`s (`[]`'s is ""). */
export type PhpPath = { name: string; keys: string[] };

/**
 * A decoded query or form name as PHP registers it, or null for one it drops (nothing before its
 * first `[`): leading spaces dropped; a NUL its end (PHP reads names as C text); before the first
 * `[`, each space and `.` an `_`; each `[…]` up to its first `]` a key, until text that is not one
 * (then ignored); a first `[` that no `]` closes an `_`, with the spaces, dots and `[` after it. So
 * `txn.type=DEBIT` is the filter `txn_type`, `user[id` is `user_id`, `%5Ba%5D=1` sets nothing.
 */
export function phpPath(sent: string): PhpPath | null {
  let start = 0;
  while (sent[start] === " ") start++;
  const nul = sent.indexOf("\0", start);
  const text = start === 0 && nul === -1 ? sent : sent.slice(start, nul === -1 ? undefined : nul);
  const open = text.indexOf("[");
  const name = (open === -1 ? text : text.slice(0, open)).replace(/[ .]/g, "_");
  if (name === "") return null;
  const keys: string[] = [];
  for (let at = open; at !== -1 && text[at] === "[" && keys.length < MAX_DEPTH; ) {
    const close = text.indexOf("]", at);
    if (close === -1) break;
    keys.push(text.slice(at + 1, close));
    at = close + 1;
  }
  if (open !== -1 && keys.length === 0)
    return { name: `${name}_${text.slice(open + 1).replace(/[ .[]/g, "_")}`, keys };
  return { name, keys };
}

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
 * else an object keyed as sent (`meta_data[channel]=app` is `{"channel":"app"}`).
 */
export function phpVars(
  pairs: Iterable<readonly [name: string, value: unknown]>,
): Record<string, unknown> {
  const vars = phpArray();
  for (const [sent, value] of pairs) {
    const path = phpPath(sent);
    if (!path) continue;
    let array = vars;
    let key = path.name;
    for (const next of path.keys) {
      const inner = array.items.get(key);
      const child = isArray(inner) ? inner : phpArray();
      set(array, key, child);
      array = child;
      key = next === "" ? String(array.next) : next;
    }
    set(array, key, value);
  }
  return Object.fromEntries([...vars.items].map(([name, value]) => [name, plain(value)]));
}

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

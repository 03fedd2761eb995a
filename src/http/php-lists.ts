// PHP's list syntax in a query or form, read as WordPress reads it, by every route (http/route.ts).
import type * as v from "valibot";
import type { Params } from "./params";

/** `name[key]…`: its name, its first key (`name[]`'s is "") and what follows (`[type]`). */
const KEYED = /^([^[\]]+)\[([^[\]]*)\](.*)$/;

/**
 * PHP reads `name[]=a` (or `name[k]=a`) in a query or form as `name` holding an array, which
 * WordPress then refuses as not text. So a declared parameter sent so reaches its rule as that
 * array, and is refused as a JSON list or object is, never dropped: dropped, a filter would answer
 * unfiltered, and a transfer's `request_id[]` would be no key at all. It is a list when its keys are
 * `[]` or 0, 1, 2… in order, else an object keyed as sent (`meta_data[channel]=app` is
 * `{"channel":"app"}`, as the plugin stored it). The plain name wins when both are sent. A name
 * with more pairs of brackets (`x[0][type]`) adds its value to a list, refused alike; `POST
 * /batches` reads its `operations[i][field]` names itself (routes/batches/schemas.ts).
 */
export function withLists(schema: v.GenericSchema | undefined, params: Params): Params {
  const entries = schema && "entries" in schema ? (schema.entries as v.ObjectEntries) : undefined;
  if (!entries) return params;
  const arrays = new Map<string, [key: string, value: unknown][]>();
  for (const [name, value] of Object.entries(params)) {
    const m = KEYED.exec(name);
    if (!m) continue;
    const base = m[1]!;
    if (!Object.hasOwn(entries, base) || Object.hasOwn(params, base)) continue;
    arrays.set(base, [...(arrays.get(base) ?? []), [m[3] === "" ? m[2]! : "", value]]);
  }
  if (arrays.size === 0) return params;
  const read = { ...params };
  for (const [base, items] of arrays) {
    const list = items.every(([key], i) => key === "" || key === String(i));
    read[base] = list
      ? items.map(([, value]) => value)
      : Object.fromEntries(items.map(([key, value], i) => [key === "" ? String(i) : key, value]));
  }
  return read;
}

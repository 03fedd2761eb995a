// A parameter's other name, declared in the route's schema so the OpenAPI document lists it: the
// plugin's `pageno` for `page`, the sign-in's `username` for `user_email`. The reader hands the
// alias's value to the parameter it names before the schema reads them, so a bad value is reported
// under that parameter's key, in its words, as WordPress clients have always been answered.
import * as v from "valibot";
import { perObject } from "../per-object";
import type { Params } from "./params";

/** The JSON Schema keyword that names the parameter an alias stands for. */
export const ALIAS_OF = "x-alias-of";

type Entries = v.ObjectEntries;

/**
 * `schema`'s rule under another name for `name`: optional, described as `name`'s alias, read as
 * `name` (which wins when both are sent); `schema` itself documents it and never runs.
 */
export const aliasField = <S extends v.GenericSchema>(name: string, schema: S, whose: string) =>
  v.optional(
    v.pipe(
      schema,
      v.description(`Alias of \`${name}\` (${whose}); \`${name}\` wins when both are sent`),
      v.metadata({ [ALIAS_OF]: name }),
    ),
  );

/** The aliases an object schema's entries declare, each with the parameter it names. */
const aliasesOf = perObject((entries: Entries) =>
  Object.entries(entries).flatMap(([alias, entry]) => {
    const inner =
      entry.type === "optional"
        ? (entry as v.OptionalSchema<v.GenericSchema, undefined>).wrapped
        : entry;
    const name = (v.getMetadata(inner as never) as Record<string, unknown> | undefined)?.[ALIAS_OF];
    return typeof name === "string" ? [[alias, name] as [string, string]] : [];
  }),
);

/** `params` with each declared alias's value handed to the parameter it names (that one wins). */
export function withAliases(schema: { entries: Entries }, params: Params): Params {
  const aliases = aliasesOf(schema.entries);
  if (aliases.length === 0) return params;
  const read: Params = { ...params };
  for (const [alias, name] of aliases) {
    read[name] = read[name] ?? read[alias];
    delete read[alias];
  }
  return read;
}

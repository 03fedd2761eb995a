// The query parameters console pages read, declared: each page names a valibot object of the
// parameters it takes, each with its fallback, since a console link is never refused (a value a page
// cannot use is that page's default). The only place the console reads its query string.
import type { Context } from "hono";
import * as v from "valibot";
import type { ConsoleEnv } from "./env";

/** A page number: a whole number from 1, else 1. */
export const PageNumber = v.fallback(
  v.pipe(v.string(), v.transform(Number), v.safeInteger(), v.minValue(1)),
  1,
);

/** A text, as sent (absent: ""). */
export const Text = v.fallback(v.string(), "");

/** The parameters `schema` declares, read from the request's query string. */
export const queryOf = <S extends v.GenericSchema<Record<string, string>, unknown>>(
  c: Context<ConsoleEnv>,
  schema: S,
): v.InferOutput<S> => v.parse(schema, c.req.query());

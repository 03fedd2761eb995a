import { fillPlaceholders, type Query } from "drizzle-orm";
import type { Db } from "./client";

/**
 * Statement texts Drizzle builds once per isolate for each shape (a name for the statement's form,
 * unique within one such set), with placeholders for their values. Drizzle spends more CPU building
 * a select or an insert than local D1 takes to run it (BENCHMARKS.md), and the hot statements have
 * few shapes. Each module keeps its own set, so no two modules' shapes can meet.
 */
export class BuiltOnce {
  readonly #texts = new Map<string, Query>();

  /** The shape's text with `values` in its placeholders. */
  query(shape: string, build: () => { toSQL(): Query }, values: Record<string, unknown>): Query {
    let text = this.#texts.get(shape);
    if (text === undefined) this.#texts.set(shape, (text = build().toSQL()));
    return { sql: text.sql, params: fillPlaceholders(text.params, values) };
  }

  /** The shape's statement with `values`, on the request's handle and meter. */
  statement(
    db: Db,
    shape: string,
    build: () => { toSQL(): Query },
    values: Record<string, unknown>,
  ) {
    const { sql, params } = this.query(shape, build, values);
    return db.$client.prepare(sql).bind(...params);
  }
}

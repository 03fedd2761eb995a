import { getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/** One value per column of `T`, each a plain value (bound as a parameter) or an SQL expression. */
type ColumnValues<T extends SQLiteTable> = {
  [K in keyof T["$inferInsert"]]-?: T["$inferInsert"][K] | SQLWrapper | null;
};

/**
 * The select list of an `INSERT INTO table SELECT …`, named by column. Drizzle inserts a table's
 * columns in schema order and matches the select list by position, so this orders the values the
 * same way: a column added to the schema is a type error here until the insert names its value.
 * (No table here has generated columns, which Drizzle would leave out of the insert.)
 */
export function selectList<T extends SQLiteTable>(table: T, values: ColumnValues<T>): SQL {
  const keys = Object.keys(getTableColumns(table)) as (keyof ColumnValues<T>)[];
  return sql.join(
    keys.map((key) => sql`${values[key]}`),
    sql`, `,
  );
}

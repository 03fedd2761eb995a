// The few wrangler.toml settings the tools read and the values they write, through a TOML parser
// that keeps every node's source range: values are read from the parsed document, and an edit
// replaces or inserts text at a node's offsets, so the comments that document each setting and the
// file's layout stay exactly as the operator left them (a parse-and-stringify would drop them).
import {
  type AST,
  getStaticTOMLValue,
  ParseError,
  parseTOML,
  traverseNodes,
  VisitorKeys,
} from "toml-eslint-parser";

type Tables = AST.TOMLTable | AST.TOMLInlineTable;

/** The syntax tree; invalid TOML throws with the parser's line and column. */
function parse(text: string) {
  try {
    return parseTOML(text);
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    throw new Error(`wrangler.toml:${error.lineNumber}:${error.column}: ${error.message}`);
  }
}

/** Every table (`[x]`, `[[x]]` or inline `{ … }`) whose key path is `path` (array indexes skipped). */
function tablesAt(program: AST.TOMLProgram, path: string[]) {
  const found: Tables[] = [];
  traverseNodes(program, {
    visitorKeys: VisitorKeys,
    enterNode(node) {
      if (node.type === "TOMLTable" && samePath(node.resolvedKey, path)) found.push(node);
      if (node.type === "TOMLInlineTable" && samePath(inlinePath(node), path)) found.push(node);
    },
    leaveNode() {},
  });
  return found;
}

const samePath = (key: (string | number)[], path: string[]) => {
  const names = key.filter((part) => typeof part === "string");
  return names.length === path.length && names.every((name, at) => name === path[at]);
};

/** An inline table's key path: the key it is the value of (in an array or not), and its table's. */
function inlinePath(node: AST.TOMLInlineTable): string[] {
  let up: AST.TOMLNode = node.parent;
  while (up.type === "TOMLArray") up = up.parent;
  if (up.type !== "TOMLKeyValue") return [];
  const own = getStaticTOMLValue(up.key);
  const holder = up.parent;
  if (holder.type === "TOMLTable")
    return [...holder.resolvedKey.filter((p) => typeof p === "string"), ...own];
  if (holder.type === "TOMLInlineTable") return [...inlinePath(holder), ...own];
  return own;
}

/** The key-value in a table whose (dotted) key is `key`. */
const entry = (table: Tables, key: string) =>
  table.body.find((kv) => getStaticTOMLValue(kv.key).join(".") === key);

const stringIn = (table: Tables, key: string) => {
  const value = entry(table, key)?.value;
  return value?.type === "TOMLValue" && value.kind === "string" ? value.value : undefined;
};

/** The `[[d1_databases]]` table (or inline table) whose `binding` is `binding`. */
const d1Table = (program: AST.TOMLProgram, binding: string) =>
  tablesAt(program, ["d1_databases"]).find((table) => stringIn(table, "binding") === binding);

/** The D1 database a binding names (name, id when set, migrations folder, table and pattern), or null. */
export function readD1(text: string, binding: string) {
  const table = d1Table(parse(text), binding);
  if (!table) return null;
  return {
    name: stringIn(table, "database_name"),
    id: stringIn(table, "database_id") || undefined,
    migrationsDir: stringIn(table, "migrations_dir") ?? "migrations",
    migrationsTable: stringIn(table, "migrations_table") ?? "d1_migrations",
    migrationsPattern: stringIn(table, "migrations_pattern"),
  };
}

/** The file's top-level keys and tables, as plain values. */
const topLevel = (text: string) => getStaticTOMLValue(parse(text)) as Record<string, unknown>;

/** A top-level string setting, such as `account_id`. */
export function topLevelValue(text: string, key: string) {
  const value = topLevel(text)[key];
  return typeof value === "string" ? value : undefined;
}

/** The top-level `[vars]`, as the Worker receives them (a value without quotes stays a JSON value). */
export function topLevelVars(text: string): Record<string, unknown> {
  const vars = topLevel(text).vars;
  return typeof vars === "object" && vars !== null ? (vars as Record<string, unknown>) : {};
}

/** Each `[[durable_objects.bindings]]` binding's class_name, by its name. */
export function objectClasses(text: string) {
  const tables = tablesAt(parse(text), ["durable_objects", "bindings"]);
  return new Map(tables.map((table) => [stringIn(table, "name"), stringIn(table, "class_name")]));
}

/** Each `[[ratelimits]]` binding's name and its `simple` limit and period, as written. */
export function rateLimits(text: string) {
  const tables = topLevel(text).ratelimits;
  return (Array.isArray(tables) ? tables : []).map((table: Record<string, unknown>) => {
    const simple = (table.simple ?? {}) as Record<string, unknown>;
    return { name: table.name, limit: simple.limit, period: simple.period };
  });
}

/** The classes each `[[migrations]]` entry makes with SQLite storage (`new_sqlite_classes`). */
export function sqliteClasses(text: string) {
  const entries = topLevel(text).migrations;
  return new Set(
    (Array.isArray(entries) ? entries : []).flatMap((entry: Record<string, unknown>) =>
      Array.isArray(entry.new_sqlite_classes) ? entry.new_sqlite_classes : [],
    ),
  );
}

/** Each `[[send_email]]` binding's name. */
export function sendEmailNames(text: string) {
  const tables = topLevel(text).send_email;
  return (Array.isArray(tables) ? tables : []).map((table: Record<string, unknown>) => table.name);
}

/** Every queue the file names (producers, consumers and dead-letter queues), in first-seen order. */
export function queueNames(text: string) {
  const program = parse(text);
  const names = [
    ...tablesAt(program, ["queues", "producers"]).map((table) => stringIn(table, "queue")),
    ...tablesAt(program, ["queues", "consumers"]).flatMap((table) => [
      stringIn(table, "queue"),
      stringIn(table, "dead_letter_queue"),
    ]),
  ].filter((name): name is string => name !== undefined);
  return [...new Set(names)];
}

const splice = (text: string, [start, end]: [number, number], insert: string) =>
  text.slice(0, start) + insert + text.slice(end);

/**
 * The file with the binding's `database_id` set: its value replaced where it is, else a line
 * `database_id = "…"` after `database_name`'s line (indented like it, after any comment on that
 * line), or `, database_id = "…"` in an inline table. Every other byte stays as it was.
 */
export function withDatabaseId(text: string, binding: string, id: string) {
  const table = d1Table(parse(text), binding);
  if (!table) throw new Error(`wrangler.toml has no [[d1_databases]] with binding = "${binding}"`);
  const quoted = JSON.stringify(id);
  const existing = entry(table, "database_id");
  if (existing) return splice(text, existing.value.range, quoted);
  const after = entry(table, "database_name") ?? entry(table, "binding")!;
  const [start, end] = after.range;
  if (table.type === "TOMLInlineTable")
    return splice(text, [end, end], `, database_id = ${quoted}`);
  const indent = text.slice(text.lastIndexOf("\n", start - 1) + 1, start);
  const lineEnd = text.indexOf("\n", end) === -1 ? text.length : text.indexOf("\n", end);
  return splice(text, [lineEnd, lineEnd], `\n${indent}database_id = ${quoted}`);
}

/**
 * The file with every `[[ratelimits]]` limit raised past anything a load sends: the tools that load
 * the service from one caller (benches, the reliability suite) measure the ledger, not the limiter.
 */
export const withRaisedRateLimits = (text: string) => withRateLimits(text, 1_000_000_000);

/** The file with every `[[ratelimits]]` limit set to `limit`, every other byte as it was. */
export function withRateLimits(text: string, limit: number) {
  const program = parse(text);
  const limits = tablesAt(program, ["ratelimits", "simple"])
    .concat(tablesAt(program, ["ratelimits"]))
    .map((table) => entry(table, "limit") ?? entry(table, "simple.limit"))
    .filter((kv): kv is AST.TOMLKeyValue => kv !== undefined)
    .sort((a, b) => b.range[0] - a.range[0]);
  // From the end of the file back, so each edit leaves the earlier offsets valid.
  return limits.reduce((out, kv) => splice(out, kv.value.range, String(limit)), text);
}

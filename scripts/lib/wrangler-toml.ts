// The few wrangler.toml settings `npm run deploy` reads and the one it writes (a D1 binding's
// database_id), handled as lines so the file's comments and layout stay as the operator left them.

const TABLE_HEADER = /^\s*\[/;
const stringValue = (line: string, key: string) =>
  line.match(new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`))?.[1];

/** The lines of the `[[d1_databases]]` table whose `binding` is `binding`: [first, end). */
function d1Table(lines: string[], binding: string) {
  for (let first = 0; first < lines.length; first++) {
    if (lines[first]!.trim() !== "[[d1_databases]]") continue;
    let end = first + 1;
    while (end < lines.length && !TABLE_HEADER.test(lines[end]!)) end++;
    const table = lines.slice(first + 1, end);
    if (table.some((line) => stringValue(line, "binding") === binding)) return { first, end };
  }
  return null;
}

const valueIn = (lines: string[], key: string) =>
  lines.map((line) => stringValue(line, key)).find((value) => value !== undefined);

/** The D1 database a binding names (`database_name`, and `database_id` when set), or null. */
export function readD1(text: string, binding: string) {
  const lines = text.split("\n");
  const table = d1Table(lines, binding);
  if (!table) return null;
  const own = lines.slice(table.first + 1, table.end);
  return { name: valueIn(own, "database_name"), id: valueIn(own, "database_id") || undefined };
}

/** A top-level string setting (before the first table), such as `account_id`. */
export function topLevelValue(text: string, key: string) {
  const lines = text.split("\n");
  const firstTable = lines.findIndex((line) => TABLE_HEADER.test(line));
  return valueIn(firstTable === -1 ? lines : lines.slice(0, firstTable), key);
}

/** The file with the binding's `database_id` set: replaced in place, else after `database_name`. */
export function withDatabaseId(text: string, binding: string, id: string) {
  const lines = text.split("\n");
  const table = d1Table(lines, binding);
  if (!table) throw new Error(`wrangler.toml has no [[d1_databases]] with binding = "${binding}"`);
  const line = `database_id = "${id}"`;
  const own = (key: string) => {
    for (let at = table.first + 1; at < table.end; at++)
      if (stringValue(lines[at]!, key) !== undefined) return at;
    return -1;
  };
  const existing = own("database_id");
  if (existing !== -1) lines[existing] = line;
  else {
    const after = own("database_name");
    lines.splice(after === -1 ? table.first + 1 : after + 1, 0, line);
  }
  return lines.join("\n");
}

/** Every queue the file names (producers, consumers and dead-letter queues), in first-seen order. */
export function queueNames(text: string) {
  const names = text
    .split("\n")
    .map((line) => stringValue(line, "queue") ?? stringValue(line, "dead_letter_queue"))
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)];
}

/**
 * The file with every `[[ratelimits]]` limit raised past anything a load sends: the tools that load
 * the service from one caller (benches, the reliability suite) measure the ledger, not the limiter.
 */
export const withRaisedRateLimits = (text: string) =>
  text.replace(/(\[\[ratelimits\]\][^[]*?\blimit\s*=\s*)\d+/g, "$11000000000");

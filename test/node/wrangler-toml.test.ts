// The wrangler.toml reads and edits of the tools (scripts/lib/wrangler-toml.ts): values come from
// the parsed document, and an edit changes the bytes of one value and nothing else.
import { readFileSync } from "node:fs";
import path from "node:path";
import { getStaticTOMLValue, parseTOML } from "toml-eslint-parser";
import { describe, expect, it } from "vitest";
import {
  queueNames,
  readD1,
  topLevelValue,
  withDatabaseId,
  withRaisedRateLimits,
} from "../../scripts/lib/wrangler-toml";

const SHIPPED = readFileSync(path.resolve(import.meta.dirname, "../../wrangler.toml"), "utf8");

describe("wrangler.toml through the parser", () => {
  it("reads the shipped file's DB binding, queues and the absent account_id", () => {
    expect(readD1(SHIPPED, "DB")).toEqual({
      name: "wallet-ledger",
      id: undefined,
      migrationsDir: "drizzle",
      migrationsTable: "d1_migrations",
    });
    expect(queueNames(SHIPPED)).toEqual(["wallet-webhooks", "wallet-webhooks-dlq"]);
    expect(topLevelValue(SHIPPED, "account_id")).toBeUndefined();
    expect(
      topLevelValue(`account_id = "abc" # mine\n[vars]\naccount_id = "no"\n`, "account_id"),
    ).toBe("abc");
  });

  // docs/operations.md: a nudge the queue gives up on was tried 11 times; a failing receiver has
  // it retried at most 4 times (events/queue.ts FRESH_AFTER_ATTEMPTS), the rest were faults.
  it("retries a webhook nudge 10 times before its dead-letter queue, which has none of its own", () => {
    const { queues } = getStaticTOMLValue(parseTOML(SHIPPED)) as {
      queues: { consumers: Record<string, unknown>[] };
    };
    const consumer = (queue: string) => queues.consumers.find((c) => c.queue === queue);
    expect(consumer("wallet-webhooks")).toMatchObject({
      max_retries: 10,
      dead_letter_queue: "wallet-webhooks-dlq",
    });
    expect(consumer("wallet-webhooks-dlq")).not.toHaveProperty("dead_letter_queue");
  });

  it("inserts database_id after database_name, indented like it, and changes nothing else", () => {
    const text = `# db\n[[d1_databases]]\n  binding = "OTHER"\n  database_name = "x"\n\n[[d1_databases]] # the one\n  binding = "DB" # here\n  database_name = "y" # by name\n  migrations_dir = "drizzle"\n`;
    expect(withDatabaseId(text, "DB", "id-1")).toBe(
      text.replace('"y" # by name\n', '"y" # by name\n  database_id = "id-1"\n'),
    );
  });

  it("replaces an existing database_id's value only, in a table or an inline table", () => {
    const table = `[[d1_databases]]\nbinding = "DB"\ndatabase_id = 'old'  # kept comment\n`;
    expect(withDatabaseId(table, "DB", "new")).toBe(
      `[[d1_databases]]\nbinding = "DB"\ndatabase_id = "new"  # kept comment\n`,
    );
    const inline = `d1_databases = [ { binding = "DB", database_name = "w" } ] # inline\n`;
    expect(withDatabaseId(inline, "DB", "n")).toBe(
      `d1_databases = [ { binding = "DB", database_name = "w", database_id = "n" } ] # inline\n`,
    );
    expect(readD1(withDatabaseId(inline, "DB", "n"), "DB")?.id).toBe("n");
  });

  it("refuses a file without the binding, and invalid TOML with the parser's position", () => {
    expect(() => withDatabaseId(SHIPPED, "NOPE", "x")).toThrow('binding = "NOPE"');
    expect(() => readD1("[[d1_databases]\n", "DB")).toThrow(
      /^wrangler\.toml:\d+:\d+: Unterminated table/,
    );
  });

  it("raises every rate limit and leaves the rest of the file as it was", () => {
    const raised = withRaisedRateLimits(SHIPPED);
    expect(raised).toBe(
      SHIPPED.replace(
        "simple = { limit = 3000, period = 60 }",
        "simple = { limit = 1000000000, period = 60 }",
      ),
    );
  });
});

// The bench's workers are measured beside the app, or are the app over another store: each is built
// as the app is, or its figures carry what the app's build left out.
describe.each(["baseline", "do-writer", "remote-d1"])("bench/%s/wrangler.toml", (worker) => {
  it("has the app's runtime and build settings", () => {
    const bench = readFileSync(
      path.resolve(import.meta.dirname, `../../bench/${worker}/wrangler.toml`),
      "utf8",
    );
    const settings = (text: string) => {
      const { compatibility_date, compatibility_flags, keep_names } = getStaticTOMLValue(
        parseTOML(text),
      ) as Record<string, unknown>;
      return { compatibility_date, compatibility_flags, keep_names };
    };
    expect(settings(bench)).toEqual(settings(SHIPPED));
  });
});

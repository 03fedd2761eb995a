import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";
import { errorText } from "../wallet/faults";

// Two envelope families, kept exactly as the plugin sent them (contract section 1):
// A: success has `data` and no `error`, failure has `error` and no `data`, status is a boolean.
// B (users, login): both keys always present, an empty one is [], failure status is "failed".

export const JSON_UTF8 = { "Content-Type": "application/json; charset=UTF-8" };

export function send(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return c.json(body, status, { ...JSON_UTF8, ...headers });
}

/** A success's body in the route's envelope family. */
const okBody = (c: Context<AppEnv>, status: number, message: string, data: unknown) =>
  c.get("envelope") === "B"
    ? { status_code: status, status: true, message, data, error: [] }
    : { status_code: status, status: true, message, data };

export function ok(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  message: string,
  data: unknown,
  headers?: Record<string, string>,
) {
  return send(c, status, okBody(c, status, message, data), headers);
}

/** Chunks a streamed answer reads ahead of its reader: one waits while the one before is sent. */
const READ_AHEAD = 1;

/**
 * A body written as it is read: `head`, then each chunk of rows as `render` writes it (told whether
 * text went before it), then `tail`. Pulled, never pushed: a chunk is read only when the reader has
 * taken the one before (one more waits in the stream's queue, so that a read overlaps the sending),
 * so a slow client holds the Worker to two chunks however long the list
 * (test/history-back-pressure.test.ts). Should a read fail midway (the status is already sent), the
 * body is cut off, never closed, and the failure is logged. `onEnd` runs once when the answer ends,
 * however it ends (sent whole, cut by a failed read, or dropped by the client), before the last
 * bytes: a client that has read the whole answer may send the next request at once.
 */
export function pulledBody<T>(
  c: Context<AppEnv>,
  parts: {
    head: string;
    chunks: AsyncIterable<T[]>;
    render: (rows: T[], afterRows: boolean) => string;
    tail: string;
    onEnd: () => Promise<void>;
  },
) {
  const encoder = new TextEncoder();
  const rows = parts.chunks[Symbol.asyncIterator]();
  let started = false;
  let afterRows = false;
  let ended = false;
  // What failed, in D1's words and the statement's, never the values it bound (db/client.ts).
  const log = (what: string, err: unknown) => {
    const { error, statement } = errorText(err);
    console.error(JSON.stringify({ request_id: c.get("requestId"), [what]: error, statement }));
  };
  const end = async () => {
    if (ended) return;
    ended = true;
    try {
      await parts.onEnd();
    } catch (err) {
      // The answer itself is whole (or already cut): what failed after it is only logged.
      log("stream_end_failed", err);
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode(parts.head));
          return;
        }
        let next: IteratorResult<T[]>;
        try {
          next = await rows.next();
        } catch (err) {
          log("streamed_answer_cut", err);
          await end();
          throw err;
        }
        if (next.done) {
          await end();
          if (parts.tail !== "") controller.enqueue(encoder.encode(parts.tail));
          controller.close();
        } else if (next.value.length > 0) {
          controller.enqueue(encoder.encode(parts.render(next.value, afterRows)));
          afterRows = true;
        }
      },
      async cancel() {
        try {
          await rows.return?.(undefined);
        } finally {
          await end();
        }
      },
    },
    { highWaterMark: READ_AHEAD },
  );
}

/**
 * The same 200 answer as `ok` with `data` an array written as it is read (`pulledBody`): a failed
 * read cuts the body, so the client's JSON parser fails instead of seeing a short list.
 */
export function streamJson<T>(
  c: Context<AppEnv>,
  message: string,
  chunks: AsyncIterable<T[]>,
  toJson: (row: T) => unknown,
  headers: Record<string, string> = {},
  onEnd: () => Promise<void> = async () => {},
) {
  const text = JSON.stringify(okBody(c, 200, message, []));
  const cut = text.indexOf('"data":[]') + '"data":['.length;
  const body = pulledBody(c, {
    head: text.slice(0, cut),
    chunks,
    render: (rows, afterRows) =>
      (afterRows ? "," : "") + rows.map((row) => JSON.stringify(toJson(row))).join(","),
    tail: text.slice(cut),
    onEnd,
  });
  return c.body(body, 200, { ...JSON_UTF8, ...headers });
}

export function fail(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  message: string,
  error: unknown,
  headers?: Record<string, string>,
) {
  const body =
    c.get("envelope") === "B"
      ? { status_code: status, status: "failed", message, data: [], error }
      : { status_code: status, status: false, message, error };
  return send(c, status, body, headers);
}

/** WordPress's own REST error shape, used where the plugin never ran (unknown route, bad JSON). */
export function wpError(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  code: string,
  message: string,
) {
  return send(c, status, { code, message, data: { status } });
}

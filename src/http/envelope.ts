import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";

// Two envelope families, kept exactly as the plugin sent them (contract section 1):
// A: success has `data` and no `error`, failure has `error` and no `data`, status is a boolean.
// B (users, login): both keys always present, an empty one is [], failure status is "failed".

const JSON_UTF8 = { "Content-Type": "application/json; charset=UTF-8" };

export function send(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return c.json(body, status, { ...JSON_UTF8, ...headers });
}

export function ok(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  message: string,
  data: unknown,
  headers?: Record<string, string>,
) {
  const body =
    c.get("envelope") === "B"
      ? { status_code: status, status: true, message, data, error: [] }
      : { status_code: status, status: true, message, data };
  return send(c, status, body, headers);
}

/** Chunks a streamed answer reads ahead of its reader: one waits while the one before is sent. */
const READ_AHEAD = 1;

/**
 * The same answer as `ok` with `data` an array written as it is read. Pulled, never pushed: a chunk
 * of rows is read and turned into JSON only when the reader has taken the one before (one more
 * waits in the stream's queue, so that a read overlaps the sending), so a slow client holds the
 * Worker to two chunks however long the list (test/history-back-pressure.test.ts). Should a read
 * fail midway (the status is already sent), the body is cut off, never closed: the client's JSON
 * parser fails instead of seeing a short list, and the failure is logged. `onEnd` runs once when
 * the answer ends, however it ends (sent whole, cut by a failed read, or dropped by the client).
 */
export function streamJson<T>(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  message: string,
  chunks: AsyncIterable<T[]>,
  toJson: (row: T) => unknown,
  headers: Record<string, string> = {},
  onEnd: () => Promise<void> = async () => {},
) {
  const shape =
    c.get("envelope") === "B"
      ? { status_code: status, status: true, message, data: [], error: [] }
      : { status_code: status, status: true, message, data: [] };
  const text = JSON.stringify(shape);
  const cut = text.indexOf('"data":[]') + '"data":['.length;
  const encoder = new TextEncoder();
  const rows = chunks[Symbol.asyncIterator]();
  let started = false;
  let separator = "";
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    try {
      await onEnd();
    } catch (err) {
      // The answer itself is whole (or already cut): what failed after it is only logged.
      console.error(
        JSON.stringify({ request_id: c.get("requestId"), stream_end_failed: String(err) }),
      );
    }
  };
  const source: UnderlyingSource<Uint8Array> = {
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(text.slice(0, cut)));
        return;
      }
      let next: IteratorResult<T[]>;
      try {
        next = await rows.next();
      } catch (err) {
        console.error(
          JSON.stringify({ request_id: c.get("requestId"), streamed_answer_cut: String(err) }),
        );
        await end();
        throw err;
      }
      if (next.done) {
        // Before the last bytes: a client that has read the whole answer may send the next at once.
        await end();
        controller.enqueue(encoder.encode(text.slice(cut)));
        controller.close();
      } else if (next.value.length > 0) {
        controller.enqueue(
          encoder.encode(
            separator + next.value.map((row) => JSON.stringify(toJson(row))).join(","),
          ),
        );
        separator = ",";
      }
    },
    async cancel() {
      try {
        await rows.return?.(undefined);
      } finally {
        await end();
      }
    },
  };
  const body = new ReadableStream(source, { highWaterMark: READ_AHEAD });
  return c.body(body, status, { ...JSON_UTF8, ...headers });
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

import type { Context } from "hono";
import type { AppEnv } from "../env";

/**
 * A `text/csv` attachment written as it is read: the header, then each chunk of rows turned into
 * text and sent before the next is read (the stream pulls: a slow client holds the reads back), so
 * memory holds one chunk. A read that fails midway cuts the body short and is logged; `onEnd` runs
 * once however the answer ends.
 */
export function streamCsv<T>(
  c: Context<AppEnv>,
  fileName: string,
  header: string,
  chunks: AsyncIterable<T[]>,
  toCsv: (rows: T[]) => string,
  headers: Record<string, string> = {},
  onEnd: () => Promise<void> = async () => {},
) {
  const encoder = new TextEncoder();
  const rows = chunks[Symbol.asyncIterator]();
  let started = false;
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    try {
      await onEnd();
    } catch (err) {
      console.error(
        JSON.stringify({ request_id: c.get("requestId"), stream_end_failed: String(err) }),
      );
    }
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(header));
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
        await end();
        controller.close();
      } else if (next.value.length > 0) {
        controller.enqueue(encoder.encode(toCsv(next.value)));
      }
    },
    async cancel() {
      try {
        await rows.return?.(undefined);
      } finally {
        await end();
      }
    },
  });
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    // The name is built from digits, a wallet id ([a-z0-9_]) and dates: no quoting is needed.
    "Content-Disposition": `attachment; filename="${fileName}"`,
    "Cache-Control": "no-store",
    ...headers,
  });
}

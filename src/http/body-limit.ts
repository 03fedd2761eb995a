// The request body's size limit. A body that says its length (Content-Length) is judged by Hono's
// bodyLimit without being read. A streamed (chunked) one is read up to the limit, as Hono's does;
// past it, the rest is read and dropped (up to DRAIN_MAX_BYTES, for at most DRAIN_MAX_MS) before
// the 413: Hono's stops reading there, and under `wrangler dev` an upload left half-read makes the
// next request of any client fail (its proxy's 503 "Your worker restarted mid-request"). Past those
// bounds the upload is cancelled.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../env";
import { unreadableBody } from "./decode";

/** The most a request body may hold, the API's and the console's forms alike (docs/security.md). */
export const MAX_BODY_BYTES = 64 * 1024;

/** The API's 413 text (keyed `body`): a body past MAX_BODY_BYTES. */
export const BODY_TOO_LARGE = `at most ${MAX_BODY_BYTES} bytes`;

const DRAIN_MAX_BYTES = 1024 * 1024;
const DRAIN_MAX_MS = 2_000;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), DRAIN_MAX_MS);
  });
  try {
    while (bytes <= DRAIN_MAX_BYTES) {
      const read = await Promise.race([reader.read(), late]);
      if (read === "late" || read.done) break;
      bytes += read.value.length;
    }
  } catch {
    // the client went away: nothing left to drain
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** Refuses a body past MAX_BODY_BYTES with `onError`'s answer, in the surface's own words. */
export function limitBody<E extends AppEnv = AppEnv>(
  onError: (c: Context<E>) => Response | Promise<Response>,
): MiddlewareHandler<E> {
  const byLength = bodyLimit({ maxSize: MAX_BODY_BYTES, onError });
  return async (c, next) => {
    const raw = c.req.raw;
    const headers = raw.headers;
    if (!raw.body || (headers.has("content-length") && !headers.has("transfer-encoding")))
      return byLength(c, next);
    const reader = raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read().catch(unreadableBody);
      if (done) break;
      size += value.length;
      if (size > MAX_BODY_BYTES) {
        await drain(reader);
        return onError(c);
      }
      chunks.push(value);
    }
    const body = await new Blob(chunks).arrayBuffer();
    // A GET or HEAD may arrive with a body (WordPress reads one on any method), but no Request of
    // either can be built with one.
    if (raw.method === "GET" || raw.method === "HEAD") c.set("streamedBody", body);
    else c.req.raw = new Request(raw, { body });
    await next();
  };
}

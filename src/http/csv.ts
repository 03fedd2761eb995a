import type { Context } from "hono";
import type { AppEnv } from "../env";
import { pulledBody } from "./envelope";

/**
 * A `text/csv` attachment written as it is read (envelope.ts `pulledBody`): the header, then each
 * chunk of rows turned into text; a slow client holds the reads back, a failed read cuts the body
 * short and is logged, and `onEnd` runs once however the answer ends.
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
  const body = pulledBody(c, { head: header, chunks, render: toCsv, tail: "", onEnd });
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    // The name is built from digits, a wallet id ([a-z0-9_]) and dates: no quoting is needed.
    "Content-Disposition": `attachment; filename="${fileName}"`,
    "Cache-Control": "no-store",
    ...headers,
  });
}

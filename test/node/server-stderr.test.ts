// What a local server's stderr shows (scripts/lib/server.ts passStderr): workerd's notices of its
// own working are left out, with the blank line wrangler writes after each; its errors and other
// warnings pass, whole, however the pipe splits them.
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { passStderr } from "../../scripts/lib/server";

const NOTICE =
  "\x1b[33m▲ \x1b[43;33m[\x1b[43;30mWARNING\x1b[43;33m]\x1b[0m \x1b[1mNOSENTRY SQLite alarm overdue, running despite AlarmManager mismatch; scheduledTime = 1796181312.398s; localAlarmTime = 1796181313.024s\x1b[0m\n\n";
const ERROR = "\x1b[31m✘ [ERROR]\x1b[0m Uncaught Error: D1_ERROR: no such table: wallets\n\n";
const WARNING = "▲ [WARNING] Something else workerd or wrangler says\n\n";

async function shown(chunks: string[]) {
  const stream = new PassThrough();
  const written: string[] = [];
  passStderr(stream, (text) => written.push(text));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await new Promise((resolve) => stream.on("end", resolve));
  return written.join("");
}

it("leaves out the runtime's notice and its blank line, and shows errors and warnings", async () => {
  expect(await shown([NOTICE, ERROR, NOTICE, WARNING, NOTICE])).toBe(ERROR + WARNING);
});

it("reads lines across the pipe's chunks, and shows a last line without its newline", async () => {
  const text = `${ERROR}${NOTICE}${WARNING}last words`;
  const chunks = text.match(/[\s\S]{1,7}/g) ?? [];
  expect(await shown(chunks)).toBe(`${ERROR}${WARNING}last words`);
});

// Questions on the terminal for the tools that ask (only when stdin is one).
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { stop } from "./exit";

/** The answer to one question, trimmed. */
export async function ask(question: string) {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/**
 * The answer to one question, typed without echo (a password): readline writes the question, then
 * everything it would echo goes nowhere. Ctrl-C (a key the terminal hands readline, not a signal,
 * while it reads) stops the tool with status 130, through runMain as any stop (lib/exit.ts).
 */
export async function askHidden(question: string, input: NodeJS.ReadableStream = process.stdin) {
  let muted = false;
  const output = new Writable({
    write(chunk, encoding, done) {
      if (!muted) process.stdout.write(chunk, encoding);
      done();
    },
  });
  const rl = createInterface({ input, output, terminal: true });
  const interrupted = new AbortController();
  rl.on("SIGINT", () => interrupted.abort());
  try {
    const answer = rl.question(question, { signal: interrupted.signal });
    muted = true;
    return await answer;
  } catch (error) {
    if (interrupted.signal.aborted) stop("Stopped (Ctrl-C).", 130);
    throw error;
  } finally {
    rl.close();
    process.stdout.write("\n");
  }
}

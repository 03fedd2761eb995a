// Questions on the terminal for the tools that ask (only when stdin is one).
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";

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
 * everything it would echo goes nowhere. Ctrl-C stops the tool, as it would at any other moment.
 */
export async function askHidden(question: string) {
  let muted = false;
  const output = new Writable({
    write(chunk, encoding, done) {
      if (!muted) process.stdout.write(chunk, encoding);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  rl.on("SIGINT", () => {
    process.stdout.write("\n");
    process.exit(130);
  });
  try {
    const answer = rl.question(question);
    muted = true;
    return await answer;
  } finally {
    rl.close();
    process.stdout.write("\n");
  }
}

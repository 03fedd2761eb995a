// The terminal prompts of the tools that ask (admin:create, deploy): a hidden answer is read
// whole, and Ctrl-C at it stops the tool through runMain, as every other stop does, never with
// process.exit(), which can hang for good (scripts/lib/exit.ts).
import { PassThrough } from "node:stream";
import { afterEach, expect, it, vi } from "vitest";
import { runMain } from "../../scripts/lib/exit";
import { askHidden } from "../../scripts/lib/prompt";

const exitCode = process.exitCode;
afterEach(() => {
  process.exitCode = exitCode;
  vi.restoreAllMocks();
});

/** The tool's output, kept from the test's; process.exit() made to throw, as it would hang. */
function quiet() {
  const out: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const exit = vi.spyOn(process, "exit").mockImplementation(() => {
    throw new Error("process.exit() called");
  });
  return { out, errors, exit };
}

it("reads a hidden answer without echoing it", async () => {
  const { out } = quiet();
  const input = new PassThrough();
  const answer = askHidden("Password (not shown): ", input);
  input.write("s3cret!\r");
  expect(await answer).toBe("s3cret!");
  expect(out.join("")).toContain("Password (not shown): ");
  expect(out.join("")).not.toContain("s3cret");
});

it("stops the tool with status 130 on Ctrl-C at a hidden prompt, through runMain", async () => {
  const { out, errors, exit } = quiet();
  const input = new PassThrough();
  let after = false;
  const tool = runMain(async () => {
    await askHidden("Password (not shown): ", input);
    after = true;
    return 0;
  });
  input.write("half");
  input.write("\x03");
  await tool;
  expect(exit).not.toHaveBeenCalled();
  expect(after).toBe(false);
  expect(process.exitCode).toBe(130);
  expect(errors).toHaveBeenCalledWith("Stopped (Ctrl-C).");
  expect(out.join("")).not.toContain("half");
});

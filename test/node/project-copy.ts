// A fresh copy of the project for the tool tests (no .dev.vars, no local state, so the developer's
// own are untouched), the shipped wrangler.toml and edits of it, and a tool's command as npm runs it.
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const COPIED = ["src", "drizzle", "scripts", "wrangler.toml", "tsconfig.json", "package.json"];

export const SHIPPED_TOML = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");

/** The shipped wrangler.toml with `from` replaced by `to` (which must be there). */
export function editedToml(from: string | RegExp, to: string) {
  const toml = SHIPPED_TOML.replace(from, to);
  expect(toml, `${from} is in wrangler.toml`).not.toBe(SHIPPED_TOML);
  return toml;
}

/** Copies the project into `dir` (node_modules linked), with `toml` as its wrangler.toml. */
export function copyProject(dir: string, toml = SHIPPED_TOML) {
  for (const name of COPIED)
    cpSync(path.join(ROOT, name), path.join(dir, name), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  writeFileSync(path.join(dir, "wrangler.toml"), toml);
  return dir;
}

/** A package.json script's command (`tsx …`) as npm runs it: the program and its arguments. */
export function scriptCommand(script: string, args: string[] = []) {
  const [bin, ...scriptArgs] = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts[script] as string
  ).split(" ");
  return [path.join(ROOT, "node_modules/.bin", bin!), [...scriptArgs, ...args]] as const;
}

// The shared database holds no planner statistics after a file (the project `workers`): a file that
// takes them (PRAGMA optimize, ANALYZE) would leave every file after it in the same worker planned
// by them, which plans depend on the files' order. Such a file runs in FRESH_START instead.
import { env } from "cloudflare:workers";
import { afterAll, expect } from "vitest";

afterAll(async () => {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE name LIKE 'sqlite_stat%'",
  ).all<{ name: string }>();
  expect(
    results.map((r) => r.name),
    "planner statistics left in the shared database: list the file in FRESH_START (vitest.config.ts)",
  ).toEqual([]);
});

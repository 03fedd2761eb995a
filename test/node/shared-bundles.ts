// Each test file of the tools and of the reliability suite removes the bundle its servers under
// Miniflare alone shared (scripts/lib/server.ts), which the process's exit would: vitest ends a
// file's process without it. Imported once the file is done, not before: a file may set what
// the module reads as it loads (start-server.test.ts's WRANGLER_BIN).
import { afterAll } from "vitest";

afterAll(async () => (await import("../../scripts/lib/server")).removeSharedBundles());

// Figures the documentation quotes from the code, held to it, so a change to the code that moves one
// fails until the sentence follows.
import { describe, expect, it } from "vitest";
import api from "../docs/api.md?raw";
import configuration from "../docs/configuration.md?raw";
import deploying from "../docs/deploying.md?raw";
import ledger from "../docs/ledger.md?raw";
import moving from "../docs/moving-from-rimplenet.md?raw";
import operations from "../docs/operations.md?raw";
import { COMPAT_ROUTES } from "../src/compat";
import { LATEST_MIGRATION } from "../src/db/latest-migration";
import { NAMESPACE, ROUTES } from "../src/routes";
import { openApiDocument } from "../src/routes/openapi";
import wranglerToml from "../wrangler.toml?raw";

const MIGRATIONS = import.meta.glob<string>("../drizzle/*.sql", {
  query: "?raw",
  import: "default",
  eager: true,
});

describe("figures the docs quote", () => {
  it("api.md counts the OpenAPI document's paths", () => {
    const paths = Object.keys((openApiDocument(ROUTES) as { paths: object }).paths);
    expect(paths.every((p) => p.startsWith(`/wp-json/${NAMESPACE}/`))).toBe(true);
    expect(api).toContain(`3.1.0 Wallet ledger API, ${paths.length} paths`);
  });

  it("deploying.md counts the migrations a fresh database is given", () => {
    expect(deploying).toContain(`Applying ${Object.keys(MIGRATIONS).length} migration(s)`);
  });

  it("the docs name the newest migration as the code does", () => {
    expect(deploying).toContain(
      `which does not hold ${LATEST_MIGRATION}, the newest this code needs`,
    );
    // GET /health's example of a migration the code does not know is the one after the newest.
    const next = String(Number(LATEST_MIGRATION.slice(0, 4)) + 1).padStart(4, "0");
    for (const doc of [api, operations, deploying])
      expect(doc).toContain(`"unknown_migrations":["${next}_….sql"]`);
  });

  it("operations.md and ledger.md give the cron's schedule as wrangler.toml sets it", () => {
    const cron = /^crons = \["([^"]+)"\]$/m.exec(wranglerToml)?.[1];
    expect(cron).toBe("* * * * *");
    expect(operations).toContain(`{"cron":"${cron}",`);
    expect(operations).toContain("Every minute (`wrangler.toml` `[triggers] crons`)");
    expect(ledger).toContain("`[triggers]`, every minute");
  });

  it("every description of COMPAT_PUBLIC_READS names each route it opens to anyone", () => {
    // An operator decides on the setting from these lines: one that says "balances" while the whole
    // ledger opens (GET transactions) would have it turned on for less than it exposes.
    const opened = COMPAT_ROUTES.filter((r) => r.publicWhen).map((r) => r.path);
    expect(opened.sort()).toEqual([
      "/transactions",
      "/user-wallet-balance",
      "/user-wallet-balance/multi",
    ]);
    const row = configuration.split("\n").find((l) => l.startsWith("| `COMPAT_PUBLIC_READS`"));
    const tomlComment = /((?:^#.*\n)+)COMPAT_PUBLIC_READS = /m.exec(wranglerToml)?.[1];
    const movingLine = moving.split("\n").find((l) => l.startsWith("COMPAT_PUBLIC_READS = "));
    for (const text of [row, tomlComment, movingLine]) {
      expect(text).toMatch(/balance/);
      expect(text).toMatch(/transactions/);
    }
  });
});

// `import:wordpress --places` as an operator types it: the option's own errors (exit 2), a place
// count the dump cannot take (exit 1, nothing written) and the dry run's report.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { SITE_OPTIONS, siteDump } from "../site-dump";
import { runScriptAsync } from "./run-script";

const root = mkdtempSync(path.join(tmpdir(), "wallet-places-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dump = path.join(root, "dust.sql");
writeFileSync(
  dump,
  siteDump(
    [{ id: "ngn", decimals: 2 }],
    [
      { user: 2, wallet: "ngn", amount: "5000" },
      { user: 3, wallet: "ngn", amount: "0.000000000001" },
    ],
    2,
  ),
);

const dryRun = (...flags: string[]) =>
  runScriptAsync(
    "scripts/import-wordpress.ts",
    [
      dump,
      "--dry-run",
      "--prefix",
      SITE_OPTIONS.prefix,
      "--namespace",
      SITE_OPTIONS.namespace,
      ...flags,
    ],
    { env: offlineEnv() },
  );

describe.concurrent("import:wordpress --places", () => {
  it.each([["ngn"], ["ngn=16"], ["ngn=-1"], ["=2"]])(
    "refuses --places %s as usage",
    async (given) => {
      const result = await dryRun("--places", given);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(
        `--places takes WALLET=N with N from 0 to 15, as --places ngn=2 (got ${given})`,
      );
    },
  );

  it("refuses a wallet named twice, in any case", async () => {
    const result = await dryRun("--places", "ngn=2", "--places", "NGN=3");
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe("--places names wallet NGN twice");
  });

  it("says what the dump cannot take, and that nothing was written", async () => {
    const result = await dryRun("--places", "usd=2");
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd()).toMatch(
      /\n--places names wallet usd, which the dump does not define\nNothing was written\.$/,
    );
  });

  it("reports the wallet's places and the histories left out, refused without --force", async () => {
    const refused = await dryRun("--places", "NGN=2");
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.stdout).toContain("balances from ledger, --places ngn=2");
    expect(refused.stdout).toContain("ngn: shows 2 decimals, stores 2 (--places)");
    expect(refused.stdout).toContain(
      "1 × an amount needs more than the 2 decimal places --places gives wallet ngn",
    );
    expect(refused.stdout).toContain("REFUSED: 1 transaction cannot be carried over");

    const forced = await dryRun("--places", "ngn=2", "--force");
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toContain("Transactions: 2 live");
    expect(forced.stdout).toContain("1 would import, 0 already there, 1 skipped");
    expect(forced.stdout).toContain("Dry run: nothing written.");
  });
});

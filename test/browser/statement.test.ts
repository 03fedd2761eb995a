// A statement downloaded from the console in a real browser (Debian's chromium, playwright-core)
// against `wrangler dev` with throwaway state: the Statement section's figures, then Download CSV,
// the file read back as a spreadsheet would read it. Screenshots as in console.test.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startServer } from "../../scripts/lib/server";
import { createWallet, launchChromium, sendConfirmed } from "./harness";
import { screenshotFolder } from "./screenshots";

const shots = screenshotFolder("statement-shots-", process.env.STATEMENT_SHOTS);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;

const form = (heading: string) =>
  page.locator("form", { has: page.getByRole("heading", { name: heading, exact: true }) });

beforeAll(async () => {
  server = await startServer({ config: "wrangler.toml" });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  shots.remove();
});

describe("a statement from the console in chromium", () => {
  it("shows a month's figures and downloads its CSV, formulas neutralised and amounts exact", async () => {
    await page.goto(`${server.base}/wallet-admin/`);
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    await page.getByRole("link", { name: "Wallets" }).click();
    await createWallet(page, "ngn", "Naira Wallet");
    await page.getByRole("status").waitFor();

    await page.getByRole("link", { name: "Users" }).click();
    await page.getByLabel("Username", { exact: true }).fill("chioma");
    await page.getByLabel("Email", { exact: true }).fill("chioma@example.test");
    await page.getByLabel("Password", { exact: true }).fill("chioma-password-1");
    await page.getByRole("button", { name: "Create user" }).click();
    expect(await page.getByRole("status").textContent()).toContain("User created.");

    for (const [action, amount, note] of [
      ["Credit", "1500", '=HYPERLINK("http://evil.example","pay")'],
      ["Debit", "250.50", "-2+3, rent"],
      ["Credit", "10.25", "bonus"],
    ] as const) {
      await form(action).getByLabel("Amount", { exact: true }).fill(amount);
      await form(action).getByLabel("Note", { exact: true }).fill(note);
      await sendConfirmed(page, action);
      await page.getByRole("status").waitFor();
    }

    // The Statement section: this month so far, its figures. Entries of the current second are
    // not yet stated (docs/api.md#get-statements-beyond-the-plugin): let it end first.
    await new Promise((done) => setTimeout(done, 1050 - (Date.now() % 1000)));
    const statement = page.locator("#statement");
    await statement.getByRole("button", { name: "Show statement" }).click();
    await page.waitForURL(/wallet=ngn/);
    const figures = page.getByRole("table", { name: "Statement totals" });
    expect(await figures.getByRole("row", { name: /^In/ }).textContent()).toContain("₦1,510.25");
    expect(await figures.getByRole("row", { name: /^Out/ }).textContent()).toContain("₦250.50");
    expect(await figures.getByRole("row", { name: /^Closing balance/ }).textContent()).toContain(
      "₦1,259.75",
    );
    await page.setViewportSize({ width: 1280, height: 900 });
    await statement.screenshot({ path: path.join(shots.dir, "statement-desktop.png") });
    await page.screenshot({
      path: path.join(shots.dir, "user-statement-desktop.png"),
      fullPage: true,
    });

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      statement.getByRole("button", { name: "Download CSV" }).click(),
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^statement-\\d+-ngn-${today.slice(0, 8)}01-to-${today}\\.csv$`),
    );
    const text = readFileSync((await download.path())!, "utf8");
    expect(text.split("\r\n")[0]).toBe(
      '"ID",post_date,post_date_gmt,txn_type,amount,balance_after,note',
    );
    const rows: string[][] = parse(text, { record_delimiter: "\r\n" });
    expect(rows.slice(1).map((r) => r.slice(3))).toEqual([
      ["CREDIT", "1500.00", "1500.00", '\'=HYPERLINK("http://evil.example","pay")'],
      ["DEBIT", "250.50", "1249.50", "'-2+3, rent"],
      ["CREDIT", "10.25", "1259.75", "bonus"],
    ]);
  }, 180_000);

  it("names each entry's wallet beneath a statement of one, two wallets drawing their amounts alike", async () => {
    // The statement is of one wallet, the entries beneath of all: ₦1,500.00 credited to ngn and
    // ₦1,500.00 to ngn_savings were two rows alike, the wallet each moved named nowhere.
    const userPage = page.url().split("?")[0]!;
    await page.getByRole("link", { name: "Wallets" }).click();
    await createWallet(page, "ngn_savings", "Naira Savings");
    await page.getByRole("status").waitFor();
    await page.goto(userPage);
    await form("Credit")
      .getByRole("combobox", { name: /^Wallet/ })
      .selectOption("ngn_savings");
    await form("Credit").getByLabel("Amount", { exact: true }).fill("1500");
    await form("Credit").getByLabel("Note", { exact: true }).fill("savings");
    await sendConfirmed(page, "Credit");
    await page.getByRole("status").waitFor();
    // On a desktop and on a phone, where the entries' cells stack: each row's wallet by its note.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const entries = page.locator("#entries");
      const cols = await entries.locator("thead th").allTextContents();
      const wallets: Record<string, string> = {};
      for (const row of await entries.locator("tbody tr").all()) {
        const cells = await row.locator("td").allTextContents();
        wallets[cells[cols.indexOf("Note")]!] = cells[cols.indexOf("Wallet")]!;
      }
      expect(wallets, `${width} px`).toEqual({
        savings: "ngn_savings",
        bonus: "ngn",
        "-2+3, rent": "ngn",
        '=HYPERLINK("http://evil.example","pay")': "ngn",
      });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});

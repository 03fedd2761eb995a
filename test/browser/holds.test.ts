// Holds on the console's user page in a real browser (as test/browser/console.test.ts runs it): a
// hold placed through the API shows under Holds with held and available, then Capture (part of it)
// and Void, each through its button. Screenshots at desktop and phone width go to docs/console/ when
// UPDATE_SCREENSHOTS=1, else to a temporary folder.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, adminAuth, startServer } from "../../scripts/lib/server";
import { apiAs, launchChromium } from "./harness";
import { screenshotFolder } from "./screenshots";

const shots = screenshotFolder("console-shots-");

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let auth: string;
let api: ReturnType<typeof apiAs>;

const shoot = (name: string) => shots.shoot(page, name);

/** The Held and Available cells of a wallet's row (named by its id). */
const availableCells = (wallet: string) =>
  page.getByRole("row", { name: new RegExp(`^${wallet} `) }).getByRole("cell");
const holdRow = (id: number) =>
  page
    .locator("section", { has: page.getByRole("heading", { name: "Holds", exact: true }) })
    .getByRole("row", { name: new RegExp(`^${id} `) });

/** Clicks the button named `name`, answers the question the browser asks, and returns it. */
async function clickAnswering(name: string, answer: "accept" | "dismiss") {
  const asked: string[] = [];
  page.once("dialog", (dialog) => {
    asked.push(dialog.message());
    return dialog[answer]();
  });
  await page.getByRole("button", { name }).click();
  await expect.poll(() => asked).toHaveLength(1);
  return asked[0];
}

beforeAll(async () => {
  server = await startServer({ config: "wrangler.toml" });
  auth = await adminAuth(server.api);
  api = apiAs(server.api, auth);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  shots.remove();
});

describe("holds on the console's user page in chromium", () => {
  it("shows a hold placed through the API, captures part of one and voids another", async () => {
    await api("POST", "/wallets", {
      wallet_id: "usd",
      wallet_name: "Dollar Wallet",
      wallet_symbol: "$",
      wallet_decimal: 2,
    });
    const user = await api("POST", "/users", {
      username: "chioma",
      user_email: "chioma@example.test",
      user_password: "chioma-password-1",
    });
    // Envelope B answers the new id as data.id.
    const userId = Number(user.id);
    await api("POST", "/credits", {
      user_id: userId,
      wallet_id: "usd",
      amount: "100.00",
      request_id: "top-up-1",
    });
    const first = await api("POST", "/holds", {
      user_id: userId,
      wallet_id: "usd",
      amount: "40.00",
      request_id: "order-1",
      note: "order 1",
    });
    const second = await api("POST", "/holds", {
      user_id: userId,
      wallet_id: "usd",
      amount: "25.00",
      request_id: "order-2",
      note: "order 2",
    });

    await page.goto(`${server.base}/wallet-admin/`);
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.goto(`${server.base}/wallet-admin/users/${userId}`);
    await page.getByRole("heading", { name: "Holds" }).waitFor();
    expect(await availableCells("usd").allTextContents()).toEqual(["usd", "$65.00", "$35.00"]);
    expect(await holdRow(first.hold_id).textContent()).toContain("held");
    await shoot("user-holds");

    // With no amount typed the browser asks about all of it; declined, nothing is sent
    expect(await clickAnswering(`Capture hold ${first.hold_id}`, "dismiss")).toBe(
      `Capture all $40.00 of hold ${first.hold_id}? All of it is debited, and a hold is captured once.`,
    );
    expect(await holdRow(first.hold_id).textContent()).toContain("held");

    // Capture 15 of the first hold: the browser asks, naming the amount typed; 15 debited, the
    // rest released
    await holdRow(first.hold_id)
      .getByLabel(`Amount to capture of hold ${first.hold_id} (empty: all)`)
      .fill(" 15 ");
    expect(await clickAnswering(`Capture hold ${first.hold_id}`, "accept")).toBe(
      `Capture 15 of hold ${first.hold_id}'s $40.00? That much is debited and the rest released, and a hold is captured once.`,
    );
    expect(await page.getByRole("status").textContent()).toContain(
      `Hold ${first.hold_id} captured: $15.00 debited`,
    );
    expect(await availableCells("usd").allTextContents()).toEqual(["usd", "$25.00", "$60.00"]);
    expect(await holdRow(first.hold_id).textContent()).toContain("captured $15.00");
    expect(await page.getByRole("button", { name: `Capture hold ${first.hold_id}` }).count()).toBe(
      0,
    );

    // Void the second: the browser asks first; declined, nothing is sent
    expect(await clickAnswering(`Void hold ${second.hold_id}`, "dismiss")).toBe(
      `Void hold ${second.hold_id}? Its $25.00 goes back to available, and a voided hold cannot be captured.`,
    );
    expect(await holdRow(second.hold_id).textContent()).toContain("held");
    expect(await availableCells("usd").allTextContents()).toEqual(["usd", "$25.00", "$60.00"]);

    // Accepted: all of it released
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: `Void hold ${second.hold_id}` }).click();
    expect(await page.getByRole("status").textContent()).toContain(
      `Hold ${second.hold_id} voided: all of it released.`,
    );
    expect(await availableCells("usd").allTextContents()).toEqual(["usd", "$0.00", "$85.00"]);
    expect(await holdRow(second.hold_id).textContent()).toContain("voided");
    await shoot("user-holds-resolved");
    const balances = await api("GET", `/balances?user_id=${userId}`);
    expect(balances).toEqual([
      expect.objectContaining({ wallet_id: "usd", balance: 85, held: 0, available: 85 }),
    ]);
  }, 180_000);
});

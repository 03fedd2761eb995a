// What every browser test starts from: Debian's chromium (never a downloaded browser; CHROMIUM_PATH
// names another), and the API called as a user, its data read back.
import { chromium, type Page } from "playwright-core";
import { expect } from "vitest";

export const launchChromium = () =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });

/**
 * A user's money form (`Credit`, `Debit`, `Transfer`) sent from its page as filled in, then
 * confirmed on the confirmation page it leads to: its one button that moves the money.
 */
export async function sendConfirmed(page: Page, action: "Credit" | "Debit" | "Transfer") {
  const heading = page.getByRole("heading", { name: action, exact: true });
  await page.locator("form", { has: heading }).getByRole("button", { name: action }).click();
  await page.getByRole("button", { name: new RegExp(`^${action} `) }).click();
}

/** The Wallets screen's form for a new naira wallet, filled in as `id` and `name` and sent. */
export async function createWallet(page: Page, id: string, name: string) {
  await page.getByLabel("Wallet id", { exact: true }).fill(id);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Symbol", { exact: true }).fill("₦");
  await page.getByLabel("Decimals", { exact: true }).fill("2");
  await page.getByRole("button", { name: "Create wallet" }).click();
}

/** A caller of the API at `base` with `auth`: each answer must be a success, and its data is returned. */
export const apiAs =
  (base: string, auth: string) => async (method: string, route: string, json?: unknown) => {
    const res = await fetch(`${base}${route}`, {
      method,
      headers: {
        Authorization: auth,
        ...(json === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    expect(res.status, `${method} ${route}: ${text}`).toBeLessThan(300);
    return JSON.parse(text).data;
  };

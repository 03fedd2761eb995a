// The operator console in a real browser: Debian's chromium driven by playwright-core (never a
// browser download), against `wrangler dev` of this worker on a free 127.0.0.1 port with throwaway
// state (scripts/lib/server.ts, as the reliability suite starts it). Elements are found by role and
// label, as a person finds them. Screenshots of each screen at desktop and phone width go to
// docs/console/ when UPDATE_SCREENSHOTS=1, else to a temporary folder.
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startServer } from "../../scripts/lib/server";
import { createWallet, launchChromium } from "./harness";
import { screenshotFolder } from "./screenshots";

const shots = screenshotFolder("console-shots-");

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;

const shoot = (name: string) => shots.shoot(page, name);

const form = (heading: string) =>
  page.locator("form", { has: page.getByRole("heading", { name: heading, exact: true }) });
const balanceCell = () => page.getByRole("row", { name: /Naira Wallet/ }).getByRole("cell");

/** The forms `move` (a reload, Back) made the browser post: none where every form redirected. */
async function postsDuring(move: () => Promise<unknown>) {
  const posted: string[] = [];
  const seen = (r: Request) => {
    if (r.method() === "POST") posted.push(r.url());
  };
  page.on("request", seen);
  await move();
  page.off("request", seen);
  return posted;
}

beforeAll(async () => {
  server = await startServer({ config: "wrangler.toml" });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  shots.remove();
});

describe("the operator console in chromium", () => {
  it("signs in, creates a wallet and a user, moves money, shows refusals, reverses, manages keys, signs out", async () => {
    await page.goto(`${server.base}/wallet-admin/`);
    await expect(page.getByRole("heading", { name: "Sign in" }).isVisible()).resolves.toBe(true);
    await shoot("sign-in");
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("not accepted");

    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    // Wallets
    await page.getByRole("link", { name: "Wallets" }).click();
    await createWallet(page, "ngn", "Naira Wallet");
    expect(await page.getByRole("status").textContent()).toContain("Wallet ngn created.");
    await shoot("wallets");

    // A user
    await page.getByRole("link", { name: "Users" }).click();
    await page.getByLabel("Username", { exact: true }).fill("adaeze");
    await page.getByLabel("Email", { exact: true }).fill("adaeze@example.test");
    await page.getByLabel("Password", { exact: true }).fill("ada-password-1");
    await page.getByRole("button", { name: "Create user" }).click();
    expect(await page.getByRole("status").textContent()).toContain("User created.");
    const userUrl = page.url().split("?")[0]!;

    // Credit after a confirmation naming the amount as the ledger writes it; nothing moves before
    // it. Then the same confirmation sent twice (a double click): money moves once
    await form("Credit").getByLabel("Amount", { exact: true }).fill("100");
    await form("Credit").getByLabel("Note", { exact: true }).fill("first top-up");
    await form("Credit").getByRole("button", { name: "Credit" }).click();
    await page.getByRole("heading", { name: "Credit ₦100.00 to adaeze?" }).waitFor();
    await shoot("credit");
    await page.getByRole("button", { name: "Credit ₦100.00 to adaeze" }).click();
    expect(await page.getByRole("status").textContent()).toContain("Transaction Completed");
    expect(await balanceCell().textContent()).toBe("₦100.00");
    await form("Credit").getByLabel("Amount", { exact: true }).fill("50");
    await form("Credit").getByRole("button", { name: "Credit" }).click();
    await page.getByRole("button", { name: "Credit ₦50.00 to adaeze" }).dblclick();
    await page.getByRole("status").waitFor();
    await page.goto(userUrl);
    expect(await balanceCell().textContent()).toBe("₦150.00");
    expect(await page.getByRole("cell", { name: "first top-up" }).count()).toBe(1);

    // A refusal in words, nothing moved
    await form("Debit").getByLabel("Amount", { exact: true }).fill("1000");
    await form("Debit").getByRole("button", { name: "Debit" }).click();
    await page.getByRole("button", { name: "Debit ₦1,000.00 from adaeze" }).click();
    expect(await page.getByRole("alert").textContent()).toContain(
      "Debit refused. Insufficient Balance",
    );
    expect(await balanceCell().textContent()).toBe("₦150.00");

    // A transfer to the administrator (user 1), after a confirmation naming whom the id reached;
    // nothing moves before it
    await form("Transfer").getByLabel("Amount", { exact: true }).fill("20");
    await form("Transfer").getByLabel("To user", { exact: true }).fill("1");
    await form("Transfer").getByRole("button", { name: "Transfer" }).click();
    await page.getByRole("heading", { name: /^Transfer ₦20\.00 to .+\?$/ }).waitFor();
    const asked = page.getByRole("table", { name: "Transfer" });
    expect(await asked.getByRole("row", { name: /^To / }).textContent()).toMatch(/\(user 1\)$/);
    expect(await asked.getByRole("row", { name: /^From / }).textContent()).toContain("adaeze");
    await shoot("transfer");
    // The confirmation is a page of its own, after a redirect: a reload fetches it, posting nothing.
    expect(await postsDuring(() => page.reload())).toEqual([]);
    await page.getByRole("heading", { name: /^Transfer ₦20\.00 to .+\?$/ }).waitFor();
    await page.getByRole("button", { name: /^Transfer ₦20\.00 to / }).click();
    expect(await page.getByRole("status").textContent()).toContain("Transfer Action Completed");
    expect(await balanceCell().textContent()).toBe("₦130.00");
    // At a desktop's width every table fits its card: nothing to scroll sideways to.
    const sideways = await page
      .locator(".scroll")
      .evaluateAll((tables: { scrollWidth: number; clientWidth: number }[]) =>
        tables.map((e) => e.scrollWidth - e.clientWidth),
      );
    expect(sideways.filter((px) => px > 0)).toEqual([]);
    await shoot("user");
    // Back to the confirmation once confirmed posts nothing either: the page says it moved once.
    expect(await postsDuring(() => page.goBack())).toEqual([]);
    expect(await page.getByRole("status").textContent()).toContain("Already done");
    expect(await balanceCell().textContent()).toBe("₦130.00");

    // Reverse the transfer, after a confirmation
    await page
      .getByRole("link", { name: /^Reverse transaction \d+$/ })
      .first()
      .click();
    await page.getByRole("heading", { name: /Reverse transaction \d+\?/ }).waitFor();
    await shoot("reverse");
    await page.getByRole("button", { name: /^Reverse transaction/ }).click();
    expect(await page.getByRole("status").textContent()).toMatch(/Transaction \d+ reversed\./);
    expect(await balanceCell().textContent()).toBe("₦150.00");

    // API keys: the secret once, then revoked. A second click while the first is on its way posts
    // nothing (without the script, chromium sends both: two keys).
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(/\/api-keys$/); // loaded: the deferred script has run
    await page.getByLabel("Name", { exact: true }).fill("operations");
    await page.getByRole("button", { name: "Create key" }).evaluate((button: { click(): void }) => {
      button.click();
      setTimeout(() => button.click(), 5);
    });
    await page.getByRole("heading", { name: /copy it now/ }).waitFor();
    expect(await page.getByRole("cell", { name: "operations", exact: true }).count()).toBe(1);
    // The console's one script shows the button once it has run (a busy machine: a moment later).
    await page.getByRole("button", { name: "Copy" }).waitFor({ state: "visible", timeout: 10_000 });
    await shoot("api-keys");
    page.once("dialog", (dialog) => dialog.accept());
    await page
      .getByRole("button", { name: /^Revoke key/ })
      .first()
      .click();
    expect(await page.getByRole("status").textContent()).toMatch(/Key \d+ revoked\./);

    // The overview and the user list after it all
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(await page.getByRole("cell", { name: "adaeze" }).count()).toBeGreaterThan(0);
    await shoot("overview");
    await page.getByRole("link", { name: "Users" }).click();
    await page.getByRole("searchbox").fill("adaeze@");
    await page.getByRole("button", { name: "Search" }).click();
    // The search is a GET form: counted on its answer, not on the page it leaves.
    await page.waitForURL(/[?&]q=adaeze/);
    await page.waitForLoadState();
    expect(await page.getByRole("link", { name: "adaeze" }).count()).toBe(1);
    await shoot("users");

    // Signing out forgets the session
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.goto(`${server.base}/wallet-admin/users`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    // A subscriber is told, politely, that the console is for administrators
    await page.getByLabel("Email", { exact: true }).fill("adaeze@example.test");
    await page.getByLabel("Password", { exact: true }).fill("ada-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent()).toContain(
      "this console is for administrators",
    );
  }, 180_000);
});

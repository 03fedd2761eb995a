// The interactive API reference in a real browser (Debian's chromium, as console.test.ts drives it)
// against `wrangler dev` on 127.0.0.1, with every request to any other host refused: the page must
// render the operations from this Worker alone, and its CSP must refuse nothing it does.
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/lib/server";
import { launchChromium } from "./harness";
import { screenshotFolder } from "./screenshots";

const shots = screenshotFolder("reference-shots-", process.env.REFERENCE_SHOTS);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
/** Every URL the page asked for, and those that went elsewhere than 127.0.0.1 (all refused). */
const requested: string[] = [];
const elsewhere: string[] = [];
/** CSP violations the page reported, and the errors its console printed. */
const violations: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  server = await startServer({ config: "wrangler.toml", seedAdmin: false });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // On the context, so a window the page opens is held to it too.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requested.push(url);
    if (new URL(url).hostname === "127.0.0.1") return route.continue();
    elsewhere.push(url);
    return route.abort("blockedbyclient");
  });
  page = await context.newPage();
  await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
  // Runs in the page before its own scripts (as text: this program has no DOM types).
  await page.addInitScript(`document.addEventListener("securitypolicyviolation", (e) =>
    reportViolation(e.violatedDirective + " refused " + (e.blockedURI || "(inline)") + " at " +
      e.sourceFile + ":" + e.lineNumber + ":" + e.columnNumber));`);
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  shots.remove();
});

describe("the API reference in chromium, offline", () => {
  it("renders every operation from this Worker alone, with no CSP violation", async () => {
    const answer = await page.goto(`${server.base}/api-reference`);
    expect(answer?.status()).toBe(200);
    // An operation's summary from the OpenAPI document, drawn by the renderer.
    await page.getByText("Credit a user's wallet").first().waitFor({ timeout: 30_000 });
    await page.getByText("Balances of one or more wallets").first().waitFor();
    await page.waitForLoadState("networkidle");
    await shots.shoot(page, "api-reference");
    await page.screenshot({ path: path.join(shots.dir, "api-reference-top.png") });

    // "Try it out" on one operation sends to this origin (connect-src 'self'): a credit without
    // credentials, refused.
    const credit = page.locator(".opblock", { hasText: "Credit a user's wallet" }).first();
    await credit.locator(".opblock-summary-control").click();
    await credit.getByRole("button", { name: "Try it out" }).click();
    const sent = page.waitForResponse((res) => res.url().endsWith("/wp-json/wallet/v1/credits"));
    await credit.getByRole("button", { name: "Execute" }).click();
    expect((await sent).status()).toBe(401);
    const status = credit.locator(".live-responses-table .response-col_status", { hasText: "401" });
    await status.waitFor();
    await status.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots.dir, "api-reference-client.png") });

    expect(elsewhere, "requests that left 127.0.0.1").toEqual([]);
    expect(violations, "CSP violations").toEqual([]);
    expect(consoleErrors.filter((text) => /content security policy/i.test(text))).toEqual([]);
    expect(requested.some((url) => url.endsWith("/wp-json/wallet/v1/openapi.json"))).toBe(true);
    expect(answer?.headers()["content-security-policy"]).toContain("default-src 'none'");
  });
});

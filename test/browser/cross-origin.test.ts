// As an attacker would try it: the operator signed in to the console in chromium, and a
// page of another origin on the same site (127.0.0.1, another port: the console's SameSite=Strict
// cookie goes along) tries to read the console and to move money and make a key with it. It gets
// nothing, even holding a valid CSRF token (as if it had stolen one); the API says nothing changed.
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, adminAuth, startServer } from "../../scripts/lib/server";
import { apiAs, launchChromium, sendConfirmed } from "./harness";

let server: Awaited<ReturnType<typeof startServer>>;
let attacker: HttpServer;
let attackerOrigin: string;
let browser: Browser;
let context: BrowserContext;
let auth: string;
let api: ReturnType<typeof apiAs>;
/** The attacker's pages, by path: set by the test once it knows the values to put in them. */
const attackPages = new Map<string, string>();

const balance = async (userId: number) =>
  ((await api("GET", `/user-wallet-balance?user_id=${userId}&wallet_id=xo`)) as { xo: number }).xo;
const keys = () => api("GET", "/api-keys");

/** A page that posts `fields` to `action` (on the console's origin) when told to. */
const formPage = (action: string, fields: Record<string, string>) =>
  `<!doctype html><form id="attack" method="post" action="${action}">${Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join("")}</form>`;

beforeAll(async () => {
  server = await startServer({ config: "wrangler.toml" });
  auth = await adminAuth(server.api);
  api = apiAs(server.api, auth);
  attacker = createServer((req, res) => {
    const page = attackPages.get(req.url ?? "") ?? "<!doctype html><title>attacker</title>";
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  browser = await launchChromium();
  context = await browser.newContext();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
  await server?.stop();
});

async function signIn(page: Page) {
  await page.goto(`${server.base}/wallet-admin/sign-in`);
  await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Overview" }).waitFor();
}

describe("a page of another origin against a signed-in operator's console", () => {
  it("cannot read the console, and its form posts and no-cors fetches move no money and make no key", async () => {
    await api("POST", "/wallets", { wallet_id: "xo", wallet_name: "Cross", wallet_symbol: "X" });
    const user = (await api("POST", "/users", {
      username: "crossorigin",
      user_email: "crossorigin@example.test",
      user_password: "cross-password-1",
    })) as { id: number };
    await api("POST", "/credits", {
      user_id: user.id,
      wallet_id: "xo",
      amount: "2",
      request_id: "cross-origin-seed",
    });
    const keysBefore = await keys();

    const operator = await context.newPage();
    await signIn(operator);
    await operator.goto(`${server.base}/wallet-admin/users/${user.id}`);
    // What an attacker who had read the page would hold: a valid CSRF token and idempotency key.
    const csrf = (await operator.locator('input[name="_csrf"]').first().getAttribute("value"))!;
    const requestId = (await operator
      .locator('input[name="request_id"]')
      .first()
      .getAttribute("value"))!;
    const credit = `${server.base}/wallet-admin/users/${user.id}/credit`;
    // As the credit's confirmation sends it (its Confirm): what would move money, were it let in.
    const stolen = {
      _csrf: csrf,
      request_id: requestId,
      wallet_id: "xo",
      amount: "777",
      step: "confirm",
    };
    attackPages.set("/credit", formPage(credit, stolen));
    attackPages.set(
      "/key",
      formPage(`${server.base}/wallet-admin/api-keys`, {
        _csrf: csrf,
        name: "stolen",
        scope: "read-write",
      }),
    );

    const page = await context.newPage();
    await page.goto(`${attackerOrigin}/`);
    // 1. Reading the console with the operator's cookie: the browser withholds the answer (no CORS).
    const read = await page.evaluate(async (url) => {
      try {
        const res = await fetch(url, { credentials: "include" });
        return `read ${res.status}: ${(await res.text()).slice(0, 80)}`;
      } catch (error) {
        return `blocked: ${error}`;
      }
    }, `${server.base}/wallet-admin/users`);
    expect(read).toMatch(/^blocked: TypeError/);

    // 2. Form posts with the operator's cookie and a valid token: refused by the origin check.
    for (const path of ["/credit", "/key"]) {
      await page.goto(`${attackerOrigin}${path}`);
      const [answer] = await Promise.all([
        page.waitForResponse((res) => res.url().startsWith(server.base)),
        page.evaluate('document.getElementById("attack").submit()'),
      ]);
      expect(answer.status(), path).toBe(403);
      expect(await answer.text()).not.toContain("copy it now");
    }

    // 3. The credit as a no-cors fetch: the request goes out with the cookie; the 403 that answers
    // it is withheld from the page too (Cross-Origin-Resource-Policy), so the fetch fails.
    await page.goto(`${attackerOrigin}/`);
    const sent = await page.evaluate(
      async ({ url, body }) => {
        try {
          await fetch(url, {
            method: "POST",
            mode: "no-cors",
            credentials: "include",
            body: new URLSearchParams(body),
          });
          return "answered";
        } catch (error) {
          return `blocked: ${error}`;
        }
      },
      { url: credit, body: stolen },
    );
    expect(sent).toMatch(/^blocked: TypeError/);

    expect(await balance(user.id)).toBe(2);
    expect(await keys()).toEqual(keysBefore);

    // The operator's own page, with the same cookie and token, still works: only the origin differed.
    await operator.reload();
    const form = operator.locator("form", {
      has: operator.getByRole("heading", { name: "Credit", exact: true }),
    });
    await form.getByLabel("Amount", { exact: true }).fill("1");
    await sendConfirmed(operator, "Credit");
    expect(await operator.getByRole("status").textContent()).toContain("Transaction Completed");
    expect(await balance(user.id)).toBe(3);
  }, 180_000);
});

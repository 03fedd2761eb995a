// The operator console's accessibility in chromium (as test/browser/console.test.ts runs it):
// axe-core (the WCAG 2.0 to 2.2 rules of levels A and AA) on every screen a signed-in administrator
// reaches, the sign-in page and refused forms included, at desktop and phone width, failing on any
// violation of impact serious or critical, or on a table of a header row alone (which axe leaves
// undecided); what axe does not check: a notice (a refusal, an outcome, a statement's refused day
// or its figures) has focus as its page opens, so a screen reader reads it, and a confirmation's
// figures do not (its first Tab is the skip link, not the button); Copy says it copied in
// a live region, focus kept; Tab reaches every control in the page's order, each with its focus
// ring; a required field's name has its mark, which no accessible name holds; each field's border
// stands out from its card (3:1).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, adminAuth, startServer } from "../../scripts/lib/server";
import { apiAs, createWallet, launchChromium, sendConfirmed } from "./harness";

/** axe's source, evaluated in each page (the console's CSP lets no script tag in, rightly). */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** WCAG 2.0, 2.1 and 2.2 at levels A and AA. */
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"];

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let userPage: string;

/** The browser's globals these tests read (the project's types have no DOM). */
type DomNode = {
  tagName: string;
  previousElementSibling: DomNode | null;
  tabIndex: number;
  textContent: string | null;
  parentElement: DomNode | null;
  closest(selector: string): unknown;
  getAttribute(name: string): string | null;
  getClientRects(): { length: number };
};
type DomWindow = {
  requestAnimationFrame(callback: (ms: number) => void): number;
  document: { activeElement: DomNode; querySelectorAll(selector: string): Iterable<DomNode> };
  getComputedStyle(
    e: DomNode,
    pseudo?: string,
  ): {
    color: string;
    content: string;
    outlineStyle: string;
    outlineWidth: string;
    borderTopColor: string;
    backgroundColor: string;
  };
};

type ClipboardWindow = { navigator: { clipboard: { readText(): Promise<string> } } };

type AxeResult = { id: string; impact: string; nodes: { target: string[] }[] };
type AxeWindow = {
  axe: {
    run(
      context: unknown,
      options: unknown,
    ): Promise<Record<"violations" | "incomplete", AxeResult[]>>;
  };
  document: { querySelectorAll(selector: string): Iterable<{ style: { background: string } }> };
};

/**
 * The rules whose "incomplete" (axe could not decide) is a fault here: th-has-data-cells is
 * incomplete only on a table of a header row alone, which tells a screen reader of columns and no
 * rows where the page should say it has none.
 */
const UNDECIDED = ["th-has-data-cells"];

/**
 * The page's violations of impact serious or critical, at a desktop's width and a phone's (where
 * wide tables scroll), each as `rule: element`, and what axe left undecided of UNDECIDED's rules.
 * axe cannot read a colour under the tables' edge shadows (.scroll's gradients, which leave the
 * card's white under the text): it is set aside while axe reads, so the tables' text is measured
 * too, on the white it is drawn on.
 */
async function audit() {
  await page.waitForLoadState();
  await page.evaluate(AXE);
  const found: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const violations = await page.evaluate(
      async ({ tags, width, undecided }) => {
        const { axe, document } = globalThis as unknown as AxeWindow;
        const scrollers = [...document.querySelectorAll(".scroll")];
        for (const s of scrollers) s.style.background = "none";
        const { violations, incomplete } = await axe.run(document, {
          runOnly: { type: "tag", values: tags },
          resultTypes: ["violations", "incomplete"],
        });
        for (const s of scrollers) s.style.background = "";
        return [
          ...violations.filter((v) => v.impact === "serious" || v.impact === "critical"),
          ...incomplete.filter((v) => undecided.includes(v.id)),
        ].flatMap((v) => v.nodes.map((n) => `${v.id} at ${width} px: ${n.target.join(" ")}`));
      },
      { tags: TAGS, width, undecided: UNDECIDED },
    );
    found.push(...violations);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

/** The relative luminance of an `rgb(r, g, b)` colour (WCAG 2). */
function luminance(rgb: string) {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const s = Number(c) / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The contrast ratio of two opaque colours. */
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

/**
 * What has focus: its tag, role, name (as the Tab test lists controls), text and focus ring. Read
 * once the page has loaded and drawn a frame: a browser focuses an `autofocus` element as it draws
 * the page's first frames (HTML's "flush autofocus candidates", before a frame's animation frame
 * callbacks), which may be after the element it focuses is found.
 */
const focused = async () => {
  await page.waitForLoadState();
  await page.evaluate(() => {
    const { requestAnimationFrame } = globalThis as unknown as DomWindow;
    return new Promise((drawn) => requestAnimationFrame(drawn));
  });
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as DomWindow;
    const e = document.activeElement;
    const style = getComputedStyle(e);
    return {
      tag: e.tagName.toLowerCase(),
      role: e.getAttribute("role"),
      name: `${e.tagName} ${e.getAttribute("aria-label") ?? e.textContent ?? ""} ${e.getAttribute("name") ?? ""}`.replace(
        /\s+/g,
        " ",
      ),
      text: e.textContent?.trim() ?? "",
      inMain: e.closest("main") !== null,
      outline: style.outlineStyle,
      outlineWidth: Number.parseFloat(style.outlineWidth),
    };
  });
};

/** A console page's address. */
const consoleAt = (path: string) => `${server.base}/wallet-admin${path}`;

const form = (heading: string) =>
  page.locator("form", { has: page.getByRole("heading", { name: heading, exact: true }) });

beforeAll(async () => {
  // Its own webhook signing key (a fresh clone has no .dev.vars): the webhooks screen needs one.
  server = await startServer({
    config: "wrangler.toml",
    vars: { WEBHOOK_SECRET_KEY: randomBytes(32).toString("hex") },
  });
  const api = apiAs(server.api, await adminAuth(server.api));
  await api("POST", "/wallets", {
    wallet_id: "ngn",
    wallet_name: "Naira Wallet",
    wallet_symbol: "₦",
    wallet_decimal: 2,
  });
  const [ada, bola] = [
    await api("POST", "/users", {
      username: "adaeze",
      user_email: "adaeze@example.test",
      user_password: "ada-password-1",
    }),
    await api("POST", "/users", {
      username: "bola",
      user_email: "bola@example.test",
      user_password: "bola-password-1",
    }),
  ];
  await api("POST", "/credits", {
    user_id: Number(ada.id),
    wallet_id: "ngn",
    amount: "100.00",
    request_id: "a-1",
  });
  await api("POST", "/holds", {
    user_id: Number(ada.id),
    wallet_id: "ngn",
    amount: "10.00",
    request_id: "hold-1",
    note: "order 1",
  });
  await api("POST", "/batches", {
    request_id: "batch-1",
    operations: [
      { type: "debit", user_id: Number(ada.id), wallet_id: "ngn", amount: "5" },
      { type: "credit", user_id: Number(bola.id), wallet_id: "ngn", amount: "5" },
    ],
  });
  // Subscribed to an event this suite never causes: no delivery goes out to a host that is none.
  await api("POST", "/webhooks", {
    url: "https://hooks.example.com/a11y",
    events: "wallet.deleted",
  });
  userPage = consoleAt(`/users/${ada.id}`);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the console's accessibility in chromium (axe-core, WCAG 2 A and AA)", () => {
  it("has no serious or critical violation on the sign-in page, refused or not", async () => {
    await page.goto(consoleAt("/"));
    const found = { "sign-in": await audit() } as Record<string, string[]>;
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    found["sign-in refused"] = await audit();
    expect(found).toEqual({ "sign-in": [], "sign-in refused": [] });
  });

  it("has none on any screen a signed-in administrator reaches", async () => {
    await page.goto(consoleAt("/"));
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const found: Record<string, string[]> = {};
    const visit = async (name: string, path: string) => {
      await page.goto(consoleAt(path));
      found[name] = await audit();
    };
    found.overview = await audit();
    await visit("users", "/users?q=ada");
    await page.goto(userPage);
    found.user = await audit();
    await visit("wallets", "/wallets");
    // No key yet: the page says so, no table of a header row alone.
    await visit("api keys, none yet", "/api-keys");
    // The keys, a new one's secret shown once with its Copy button.
    await page.goto(consoleAt("/api-keys"));
    await page.getByLabel("Name", { exact: true }).fill("operations");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("button", { name: "Copy" }).waitFor();
    found["api keys"] = await audit();
    await visit("webhooks", "/webhooks");
    await visit("outbox", "/outbox");
    await visit("not found", "/nothing-here");
    // A batch, through its link on the user's page.
    await page.goto(userPage);
    await page
      .getByRole("link", { name: /^batch \d+$/ })
      .first()
      .click();
    found.batch = await audit();
    // A reversal's confirmation.
    await page.goto(userPage);
    await page
      .getByRole("link", { name: /^Reverse transaction \d+$/ })
      .first()
      .click();
    await page.getByRole("heading", { name: /Reverse transaction \d+\?/ }).waitFor();
    found.reversal = await audit();
    // A transfer's confirmation.
    await page.goto(userPage);
    await form("Transfer").getByLabel("Amount", { exact: true }).fill("1");
    await form("Transfer").getByLabel("To user", { exact: true }).fill("1");
    await form("Transfer").getByRole("button", { name: "Transfer" }).click();
    await page.getByRole("heading", { name: /^Transfer ₦1\.00 to .+\?$/ }).waitFor();
    found.transfer = await audit();
    // A credit's confirmation.
    await page.goto(userPage);
    await form("Credit").getByLabel("Amount", { exact: true }).fill("1");
    await form("Credit").getByRole("button", { name: "Credit" }).click();
    await page.getByRole("heading", { name: /^Credit ₦1\.00 to .+\?$/ }).waitFor();
    found.credit = await audit();
    // A refused form drawn again under its refusal.
    await page.goto(userPage);
    await form("Debit").getByLabel("Amount", { exact: true }).fill("1000");
    await sendConfirmed(page, "Debit");
    await page.getByRole("alert").waitFor();
    found["debit refused"] = await audit();
    // A statement's day that is none, marked invalid.
    await page.goto(`${userPage}?from=2026-02-31`);
    found["statement refused"] = await audit();
    // A refused new wallet.
    await page.goto(consoleAt("/wallets"));
    await createWallet(page, "ngn", "Naira again");
    await page.getByRole("alert").waitFor();
    found["wallet refused"] = await audit();
    expect(Object.entries(found).filter(([, v]) => v.length > 0)).toEqual([]);
  });

  it("puts focus on a notice when a page opens with one, so a screen reader reads it first", async () => {
    // A refusal: its words (role alert) have focus as the page opens, before the form drawn again.
    await page.goto(userPage);
    await form("Debit").getByLabel("Amount", { exact: true }).fill("1000");
    await sendConfirmed(page, "Debit");
    await page.getByRole("alert").waitFor();
    expect(await focused()).toMatchObject({ role: "alert", text: /^Debit refused\./ });
    // The next Tab goes on from there: the refused form's own fields are ahead, the nav behind.
    await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject({ inMain: true });
    // A form that succeeded: its outcome (role status) likewise.
    await form("Credit").getByLabel("Amount", { exact: true }).fill("1");
    await sendConfirmed(page, "Credit");
    await page.getByRole("status").waitFor();
    expect(await focused()).toMatchObject({ role: "status", text: /^Transaction Completed/ });
    // A refused download comes back to the user's page, its words focused there too, before the
    // statement asked for (whose figures would have focus without them).
    await page.goto(`${userPage}/statement.csv?wallet=nope&from=2026-11-01&to=2026-11-20`);
    await page.getByRole("alert").waitFor();
    expect(await focused()).toMatchObject({ role: "alert", text: /^Statement refused\./ });
    // A page without a notice leaves focus where a browser puts it (the first Tab: the skip link).
    await page.goto(userPage);
    expect(await focused()).toMatchObject({ tag: "body" });
  });

  it("leaves focus where a browser puts it on a confirmation: its first Tab is the skip link, not its button", async () => {
    // Nothing was refused or done there: the page is read from its top, and Tab then Enter does
    // not confirm a transfer or a reversal.
    const skip = { tag: "a", text: "Skip to main content" };
    await page.goto(userPage);
    await form("Transfer").getByLabel("Amount", { exact: true }).fill("1");
    await form("Transfer").getByLabel("To user", { exact: true }).fill("1");
    await form("Transfer").getByRole("button", { name: "Transfer" }).click();
    await page.getByRole("heading", { name: /^Transfer ₦1\.00 to .+\?$/ }).waitFor();
    expect(await focused()).toMatchObject({ tag: "body" });
    await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject(skip);
    await page.goto(userPage);
    await page
      .getByRole("link", { name: /^Reverse transaction \d+$/ })
      .first()
      .click();
    await page.getByRole("heading", { name: /Reverse transaction \d+\?/ }).waitFor();
    expect(await focused()).toMatchObject({ tag: "body" });
    await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject(skip);
  });

  it("puts focus on a statement's refused day, told beside its field, as on any refusal, or its figures", async () => {
    // A day that is none, in the address.
    await page.goto(`${userPage}?wallet=ngn&from=2026-02-31`);
    expect(await focused()).toMatchObject({
      role: "alert",
      text: /^No statement: From \(2026-02-31\) is not a calendar day/,
    });
    // Days the service refuses (from after to), sent by the form, and their CSV, refused.
    await page.goto(userPage);
    const statement = page.locator("#statement");
    await statement.getByLabel("From", { exact: true }).fill("2026-11-20");
    await statement.getByLabel("To", { exact: true }).fill("2026-11-10");
    await statement.getByRole("button", { name: "Show statement" }).click();
    await page.waitForURL(/from=2026-11-20/);
    const refused = { role: "alert", text: /^No statement: from must not be after to/ };
    expect(await focused()).toMatchObject(refused);
    await page.goto(`${userPage}/statement.csv?wallet=ngn&from=2026-11-20&to=2026-11-10`);
    expect(await focused()).toMatchObject(refused);
    // Days that make one: its figures have focus, as a form's outcome has.
    await statement.getByLabel("From", { exact: true }).fill("2026-11-01");
    await statement.getByRole("button", { name: "Show statement" }).click();
    await page.waitForURL(/from=2026-11-01/);
    expect(await focused()).toMatchObject({ tag: "table", text: /^Opening balance/ });
  });

  it("tells a screen reader a new key's secret was copied, focus left on Copy", async () => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: server.base,
    });
    await page.goto(consoleAt("/api-keys"));
    await page.getByLabel("Name", { exact: true }).fill("copied");
    await page.getByRole("button", { name: "Create key" }).click();
    const copy = page.getByRole("button", { name: "Copy" });
    await copy.waitFor();
    // A live region is read out when its words change, not when it is drawn: it is there already.
    const regions = await page.getByRole("status").count();
    await copy.click();
    await page.getByRole("status").filter({ hasText: "Copied" }).waitFor({ timeout: 10_000 });
    expect(await page.getByRole("status").count()).toBe(regions);
    expect(await focused()).toMatchObject({ tag: "button", text: "Copy" });
    const secret = (await page.locator("#new-key").textContent())?.trim();
    const copied = await page.evaluate(() => {
      const { navigator } = globalThis as unknown as ClipboardWindow;
      return navigator.clipboard.readText();
    });
    expect(copied).toBe(secret);
  });

  it("reaches every control by Tab, in the page's order, each with its focus ring", async () => {
    for (const path of [userPage, consoleAt("/webhooks")]) {
      await page.goto(path);
      const controls = await page.evaluate(() => {
        const { document } = globalThis as unknown as DomWindow;
        return [...document.querySelectorAll("a[href], button, input, select, [tabindex]")]
          .filter((e) => e.tabIndex >= 0 && e.getClientRects().length > 0)
          .map((e) =>
            `${e.tagName} ${e.getAttribute("aria-label") ?? e.textContent ?? ""} ${e.getAttribute("name") ?? ""}`.replace(
              /\s+/g,
              " ",
            ),
          );
      });
      const reached: string[] = [];
      const rings: string[] = [];
      // Tab until as many controls were reached as the page has (a bound: a date field is three
      // stops, its day, month and year, as chromium draws one, counted once).
      for (
        let press = 0;
        reached.length < controls.length && press < 4 * controls.length;
        press++
      ) {
        await page.keyboard.press("Tab");
        const f = await focused();
        if (reached.at(-1) === f.name) continue;
        reached.push(f.name);
        if (!(f.outline === "solid" && f.outlineWidth >= 3)) rings.push(f.name);
      }
      expect(reached).toEqual(controls);
      expect(rings).toEqual([]);
    }
  });

  it("marks each required field's name, and only those, for the eye: a screen reader hears the name alone", async () => {
    const wrong: string[] = [];
    for (const path of [
      userPage,
      ...["/wallets", "/api-keys", "/users", "/webhooks"].map(consoleAt),
    ]) {
      await page.goto(path);
      const fields = await page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as DomWindow;
        return [...document.querySelectorAll("label > :is(input, select)")].map((e) => ({
          name: e.getAttribute("name") ?? "",
          required: e.getAttribute("required") !== null,
          mark: e.previousElementSibling
            ? getComputedStyle(e.previousElementSibling, "::after").content
            : "none",
        }));
      });
      const where = new URL(path).pathname;
      for (const f of fields)
        if (f.required !== f.mark.startsWith('"*"'))
          wrong.push(`${where} ${f.name}: required ${f.required}, mark ${f.mark}`);
      // The names in chromium's accessibility tree, which a screen reader reads: none with the mark.
      const cdp = await page.context().newCDPSession(page);
      const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as {
        nodes: { role?: { value: string }; name?: { value: string } }[];
      };
      await cdp.detach();
      for (const n of nodes)
        if (["textbox", "combobox"].includes(n.role?.value ?? "") && n.name?.value.includes("*"))
          wrong.push(`${where} ${n.role?.value} named ${n.name.value}`);
      expect(fields.filter((f) => f.required).length, where).toBeGreaterThan(0);
    }
    expect(wrong).toEqual([]);
  });

  it("draws each field's border at 3:1 or more on its card (WCAG 1.4.11), a placeholder at 4.5:1", async () => {
    const low: string[] = [];
    for (const path of [userPage, ...["/wallets", "/api-keys", "/users"].map(consoleAt)]) {
      await page.goto(path);
      const fields = await page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as DomWindow;
        return [...document.querySelectorAll("input:not([type=hidden]), select")].map((e) => {
          let behind: DomNode | null = e.parentElement;
          while (behind && getComputedStyle(behind).backgroundColor === "rgba(0, 0, 0, 0)")
            behind = behind.parentElement;
          return {
            name: e.getAttribute("name") ?? "",
            border: getComputedStyle(e).borderTopColor,
            card: behind ? getComputedStyle(behind).backgroundColor : "rgb(255, 255, 255)",
            placeholder: e.getAttribute("placeholder")
              ? getComputedStyle(e, "::placeholder").color
              : undefined,
            background: getComputedStyle(e).backgroundColor,
          };
        });
      });
      const where = new URL(path).pathname;
      for (const f of fields) {
        const ratio = contrast(f.border, f.card);
        if (ratio < 3)
          low.push(`${where} ${f.name}: ${f.border} on ${f.card}, ${ratio.toFixed(2)}:1`);
        // A placeholder is text (To user's "user id" says what the field takes): 4.5:1.
        const hint = f.placeholder && contrast(f.placeholder, f.background);
        if (hint && hint < 4.5)
          low.push(`${where} ${f.name}'s placeholder: ${f.placeholder}, ${hint.toFixed(2)}:1`);
      }
    }
    expect(low).toEqual([]);
  });
});

// The console on a 390 × 844 phone, by keyboard, in a real browser (as test/browser/console.test.ts
// runs it): the skip link and the focus ring, dates that never break inside, a chart's text large
// enough to read, an entry's cells two lines at most, a long username within the screen, the users
// list as wide as the screen, every table with buttons in its rows as wide as the screen, its
// buttons on it, at any width from 320 to 1280 px, a table's buttons on one line, a hold's Void
// beside its Capture and its note on one line, and a statement's day that is none shown as typed
// with its words under it, and each money form within its card however long a wallet's name.
// Data through the API.
import { randomBytes } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, adminAuth, startServer } from "../../scripts/lib/server";
import { apiAs, launchChromium } from "./harness";

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let auth: string;
let api: ReturnType<typeof apiAs>;
let userPage: string;

/** A username as long as one can be (60 characters), with no hyphen to break at. */
const LONG_NAME = "chukwuemeka_oluwaseun_adebayo_okonkwo.international_trading1";
/** An e-mail as long as one can be (100 characters), with no hyphen to break at: that user's. */
const LONG_EMAIL =
  "chukwuemeka.oluwaseun.adebayo.okonkwo@accounts.internationaltradingcompanylimited.lagos.example.test";
let longUserPage: string;
/** A webhook receiver on 127.0.0.1 that takes every delivery: a delivery of an event has Resend. */
let receiver: HttpServer;

/** Request ids as the console's money forms write them: a uuid, which breaks at its hyphens. */
const REQUEST_IDS = [0, 1, 2].map((i) => `console-3f6c2a1e-8b4d-4e2f-9a7c-1d5e0b8f264${i}`);

/** The browser's globals these tests read (the project's types have no DOM). */
type Box = { left: number; right: number; top: number; bottom: number; width: number };
type Node = {
  tagName: string;
  textContent: string | null;
  closest(selector: string): unknown;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): Box;
};
type Walker = { nextNode(): unknown };
type Scroller = { scrollWidth: number; clientWidth: number };
type Window = {
  document: {
    activeElement: Node;
    documentElement: { scrollWidth: number };
    getElementById(id: string): Node | null;
    createTreeWalker(root: unknown, show: number): Walker;
    createRange(): { selectNodeContents(node: unknown): void; getClientRects(): Iterable<Box> };
  };
  innerHeight: number;
  getComputedStyle(node: unknown): { fontSize: string; outlineColor: string; outlineStyle: string };
};
type Svg = { getScreenCTM(): { a: number }; querySelectorAll(selector: string): Iterable<unknown> };

/** What has focus: its tag, its text and whether it lies in <main> and inside the viewport. */
const focused = () =>
  page.evaluate(() => {
    const { document, innerHeight } = globalThis as unknown as Window;
    const e = document.activeElement;
    const box = e.getBoundingClientRect();
    return {
      tag: e.tagName.toLowerCase(),
      text: e.textContent?.trim() ?? "",
      inMain: e.closest("main") !== null,
      onScreen: box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.width > 0,
    };
  });

/** How many lines the text inside a node takes, run in the page: its text's rows, each counted once. */
function textLines(node: unknown) {
  const { document } = globalThis as unknown as Window;
  const texts = document.createTreeWalker(node, 4); // NodeFilter.SHOW_TEXT
  const tops = new Set<number>();
  for (let text = texts.nextNode(); text; text = texts.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(text);
    for (const box of range.getClientRects()) tops.add(Math.round(box.top));
  }
  return tops.size;
}

/** WCAG's contrast ratio of a CSS `rgb(r, g, b)` against white. */
function contrastOnWhite(rgb: string) {
  const [r, g, b] = rgb.match(/\d+/g)!.map((c) => {
    const s = Number(c) / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
}

/** The widths a table with buttons in its rows is checked at: phones, tablets, a desktop. */
const WIDTHS = [390, 320, 641, 720, 800, 900, 1024, 1280];

/** A screen to check (its address) and its rows' controls, each by role and name. */
type Screen = [string, ["button" | "link", RegExp][]];

/**
 * At each width, each screen as wide as the viewport, none of its tables scrolling sideways and
 * every control named within the viewport (there is one of each at least); 390 px wide after.
 */
async function expectControlsOnScreen(screens: Screen[], widths: number[]) {
  const sideways = (scrollers: Scroller[]) =>
    scrollers.map((s) => s.scrollWidth - s.clientWidth).filter((px) => px > 0);
  const pageWidth = () => (globalThis as unknown as Window).document.documentElement.scrollWidth;
  try {
    for (const width of widths) {
      await page.setViewportSize({ width, height: 844 });
      for (const [path, names] of screens) {
        await page.goto(path);
        await page.waitForLoadState();
        const at = `${width} px, ${path}`;
        expect(await page.evaluate(pageWidth), at).toBe(width);
        expect(await page.locator("main .scroll").evaluateAll(sideways), at).toEqual([]);
        for (const [role, name] of names) {
          const controls = await page.getByRole("main").getByRole(role, { name }).all();
          expect(controls.length, `${at}: ${name}`).toBeGreaterThan(0);
          for (const control of controls) {
            const box = (await control.boundingBox())!;
            const shown = `${at}: ${await control.textContent()} ${JSON.stringify(box)}`;
            expect(box.x, shown).toBeGreaterThanOrEqual(0);
            expect(box.x + box.width, shown).toBeLessThanOrEqual(width);
          }
        }
      }
    }
  } finally {
    await page.setViewportSize({ width: 390, height: 844 });
  }
}

beforeAll(async () => {
  // Its own webhook signing key (a fresh clone has no .dev.vars): the webhooks screen needs one.
  server = await startServer({
    config: "wrangler.toml",
    vars: { WEBHOOK_SECRET_KEY: randomBytes(32).toString("hex"), WEBHOOK_ALLOW_LOCAL: "true" },
  });
  receiver = createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise<void>((listening) => receiver.listen(0, "127.0.0.1", listening));
  auth = await adminAuth(server.api);
  api = apiAs(server.api, auth);
  await api("POST", "/wallets", {
    wallet_id: "ngn",
    wallet_name: "Naira Wallet",
    wallet_symbol: "₦",
    wallet_decimal: 2,
  });
  const user = await api("POST", "/users", {
    username: "ifeoma",
    user_email: "ifeoma@example.test",
    user_password: "ifeoma-password-1",
  });
  for (const [i, amount] of ["1500.00", "2250.50", "75.25"].entries())
    await api("POST", "/credits", {
      user_id: Number(user.id),
      wallet_id: "ngn",
      amount,
      request_id: REQUEST_IDS[i],
      note: "salary for the month",
    });
  await api("POST", "/holds", {
    user_id: Number(user.id),
    wallet_id: "ngn",
    amount: "40.00",
    request_id: "phone-hold",
    note: "deposit for order 1",
  });
  userPage = `${server.base}/wallet-admin/users/${user.id}`;
  const long = await api("POST", "/users", {
    username: LONG_NAME,
    user_email: LONG_EMAIL,
    user_password: "chukwuemeka-password-1",
  });
  await api("POST", "/credits", {
    user_id: Number(long.id),
    wallet_id: "ngn",
    amount: "1500.00",
    request_id: "phone-long-name",
  });
  longUserPage = `${server.base}/wallet-admin/users/${long.id}`;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(`${server.base}/wallet-admin/`);
  await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Overview" }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  receiver?.close();
});

describe("the console at phone width, by keyboard, in chromium", () => {
  it("skips to the main content from the first Tab, the link shown while it has focus", async () => {
    for (const path of ["/wallet-admin/", userPage]) {
      await page.goto(path.startsWith("http") ? path : `${server.base}${path}`);
      const skip = page.getByRole("link", { name: "Skip to main content" });
      expect(await skip.boundingBox(), "hidden until focused").toSatisfy(
        (box: { y: number; height: number } | null) => box === null || box.y + box.height <= 0,
      );
      await page.keyboard.press("Tab");
      expect(await focused()).toMatchObject({ text: "Skip to main content", onScreen: true });
      // Its ring, as every control's, stands out from the white around it (WCAG 1.4.11: 3:1).
      const ring = await page.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as Window;
        const { outlineColor, outlineStyle } = getComputedStyle(document.activeElement);
        return { outlineColor, outlineStyle };
      });
      expect(ring.outlineStyle).toBe("solid");
      expect(contrastOnWhite(ring.outlineColor)).toBeGreaterThanOrEqual(3);
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      expect(await focused(), path).toMatchObject({ inMain: true, onScreen: true });
    }
  });

  it("never breaks a date or a time of day inside, in a table or a statement's figures", async () => {
    for (const path of ["/wallet-admin/", userPage]) {
      await page.goto(path.startsWith("http") ? path : `${server.base}${path}`);
      const parts = await page
        .locator("main time > span")
        .evaluateAll((spans) =>
          spans.map((s) => ({ text: s.textContent, lines: s.getClientRects().length })),
        );
      expect(parts.length, path).toBeGreaterThan(2);
      for (const part of parts) expect(part, path).toMatchObject({ lines: 1 });
    }
    // The whole page is as wide as the phone: a wide table scrolls within it.
    const width = () => (globalThis as unknown as Window).document.documentElement.scrollWidth;
    expect(await page.evaluate(width)).toBe(390);
  });

  it("keeps an entry's cells to two lines, its date over its time, the request id whole on one line", async () => {
    // On the phone, at a tablet's and at a small laptop's width, where its cells stack, and at a
    // desktop's, where they do not.
    for (const width of [390, 800, 1024, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(userPage);
      const cols = await page.locator("#entries thead th").allTextContents();
      const rows = page.locator("#entries tbody tr");
      expect(await rows.count()).toBe(REQUEST_IDS.length);
      for (const row of await rows.all()) {
        const cells = await row.locator("td").all();
        const lines = await Promise.all(cells.map((cell) => cell.evaluate(textLines)));
        const at = (col: string) => lines[cols.indexOf(col)];
        const shown = `${width} px: ${cols.map((col, i) => `${col} ${lines[i]}`).join(", ")}`;
        expect(REQUEST_IDS).toContain(await cells[cols.indexOf("Request id")]!.textContent());
        // The date over its time of day; no cell on more lines, the request id and the note on one.
        if (width === 390) expect(at("Date (UTC)"), shown).toBe(2);
        expect(at("Request id"), shown).toBe(1);
        expect(at("Note"), shown).toBe(1);
        expect(Math.max(...lines), shown).toBeLessThanOrEqual(2);
      }
    }
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it("keeps a long username on the screen: the latest transactions' every column, a user's page", async () => {
    await page.goto(`${server.base}/wallet-admin/`);
    const latest = page.locator("section", {
      has: page.getByRole("heading", { name: "Latest transactions" }),
    });
    expect(await latest.getByRole("link", { name: LONG_NAME }).count()).toBeGreaterThan(0);
    const frame = (await latest.locator(".scroll").boundingBox())!;
    const rights = await latest
      .locator("th, td")
      .evaluateAll((cells) => cells.map((c) => c.getBoundingClientRect().right));
    expect(Math.max(...rights)).toBeLessThanOrEqual(frame.x + frame.width);
    // A short username stays whole, also on the narrowest phone: a column squeezed to its
    // narrowest drew "ifeo ma" while the long one broke anywhere.
    await page.setViewportSize({ width: 320, height: 844 });
    try {
      const short = await latest.getByRole("link", { name: "ifeoma", exact: true }).all();
      expect(short.length).toBeGreaterThan(0);
      for (const link of short) expect(await link.evaluate(textLines)).toBe(1);
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
    // Its title and its Sign out everywhere, as wide as the phone.
    await page.goto(longUserPage);
    const width = () => (globalThis as unknown as Window).document.documentElement.scrollWidth;
    expect(await page.evaluate(width)).toBe(390);
  });

  it("keeps a transfer's and a reversal's confirmation as wide as the phone, a long username and note included", async () => {
    // A 60-character username and a note of one 80-character word pushed the page 250 px wide.
    const note = "n".repeat(80);
    await page.goto(longUserPage);
    const transfer = page.locator("form", {
      has: page.getByRole("heading", { name: "Transfer", exact: true }),
    });
    await transfer.getByLabel("Amount", { exact: true }).fill("1");
    await transfer.getByLabel("To user", { exact: true }).fill("1");
    await transfer.getByLabel("Note", { exact: true }).fill(note);
    await transfer.getByRole("button", { name: "Transfer" }).click();
    await page.getByRole("heading", { name: /^Transfer ₦1\.00 to / }).waitFor();
    // Measured once the stylesheet is in: a page laid out before it arrives is as wide as its text.
    await page.waitForLoadState();
    const width = () => (globalThis as unknown as Window).document.documentElement.scrollWidth;
    expect(await page.evaluate(width)).toBe(390);
    await page.getByRole("button", { name: /^Transfer ₦1\.00 to / }).click();
    await page.getByRole("status").waitFor();
    await page
      .getByRole("link", { name: /^Reverse transaction \d+$/ })
      .first()
      .click();
    await page.getByRole("heading", { name: /^Reverse transaction \d+\?$/ }).waitFor();
    await page.waitForLoadState();
    expect(await page.getByRole("cell", { name: note }).count()).toBe(1);
    expect(await page.evaluate(width)).toBe(390);
  });

  it("spaces the overview's cards alike on a phone: one gap between each and the next", async () => {
    // The grid's gap and each card's own margin added up: twice the gap between its cards.
    await page.goto(`${server.base}/wallet-admin/`);
    const boxes = await page
      .locator("main > .grid > section, main > section")
      .evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect()));
    const gaps = boxes.slice(1).map((box, i) => Math.round(box.top - boxes[i]!.bottom));
    expect(new Set(gaps).size, String(gaps)).toBe(1);
  });

  it("keeps a webhook's Delete beside its Send a test at 1280 px, not out in the card", async () => {
    // Subscribed to an event this suite never causes: a delivery would look up a host that does
    // not exist, and workerd would print that failure in a green run.
    await api("POST", "/webhooks", {
      url: "https://hooks.example.com/phone",
      events: "wallet.deleted",
    });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.base}/wallet-admin/webhooks`);
    const send = (await page
      .getByRole("button", { name: /^Send a test/ })
      .first()
      .boundingBox())!;
    const remove = (await page
      .getByRole("button", { name: /^Delete webhook/ })
      .first()
      .boundingBox())!;
    await page.setViewportSize({ width: 390, height: 844 });
    expect(remove.y).toBe(send.y);
    expect(remove.x - (send.x + send.width)).toBeLessThanOrEqual(24);
  });

  it("fits the users list to the phone, each e-mail under its username, its id beside both, still a table", async () => {
    await page.goto(`${server.base}/wallet-admin/users`);
    const list = page.locator(".scroll", {
      has: page.getByRole("columnheader", { name: "E-mail" }),
    });
    const sizes = (s: Scroller) => ({ scrollWidth: s.scrollWidth, clientWidth: s.clientWidth });
    const frame = await list.evaluate(sizes);
    expect(frame.scrollWidth, JSON.stringify(frame)).toBeLessThanOrEqual(frame.clientWidth);
    for (const [name, email] of [
      ["ifeoma", "ifeoma@example.test"],
      [LONG_NAME, LONG_EMAIL],
    ] as const) {
      const row = list.locator("tr", { has: page.getByRole("link", { name, exact: true }) });
      const [idCell, nameCell, emailCell] = await row.locator("td").all();
      expect(await emailCell!.textContent()).toBe(email);
      expect(await idCell!.textContent()).toMatch(/^[0-9]+$/);
      // Under the username, at its left, and neither cell holding more than it shows; the id left
      // of both, as tall as the two.
      const [idBox, nameBox, emailBox] = [
        (await idCell!.boundingBox())!,
        (await nameCell!.boundingBox())!,
        (await emailCell!.boundingBox())!,
      ];
      expect(emailBox.y, name).toBeGreaterThanOrEqual(nameBox.y + nameBox.height - 1);
      expect(emailBox.x, name).toBe(nameBox.x);
      expect(idBox.x + idBox.width, name).toBeLessThanOrEqual(nameBox.x + 1);
      expect(idBox.y, name).toBe(nameBox.y);
      expect(idBox.y + idBox.height, name).toBeCloseTo(emailBox.y + emailBox.height, 0);
      for (const cell of [nameCell!, emailCell!]) {
        const inside = await cell.evaluate(sizes);
        expect(inside.scrollWidth, name).toBeLessThanOrEqual(inside.clientWidth);
      }
    }
    // An e-mail of an ordinary length whole on one line, not broken to fit beside the username.
    const ordinary = list.getByRole("cell", { name: "ifeoma@example.test", exact: true });
    expect(await ordinary.evaluate(textLines)).toBe(1);
    // Laid out as a grid on a phone, the list is still a table to a screen reader: chromium's own
    // accessibility tree, not the DOM, names its headers and cells.
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    await cdp.detach();
    const roles = nodes.map((n) => `${n.role?.value} ${n.name?.value ?? ""}`.trim());
    expect(roles).toEqual(
      expect.arrayContaining([
        "table",
        ...["ID", "Username", "E-mail", "Role", "Balances"].map((col) => `columnheader ${col}`),
        `cell ${LONG_EMAIL}`,
      ]),
    );
  });

  it("fits each table with buttons in its rows to the screen at any width, every button on it", async () => {
    // The holds (856 px of content in a 351 px card), the entries (817 px), the API keys and a
    // webhook's deliveries drew their buttons past the screen's right edge, reached only by
    // scrolling the table sideways; Revoke key was cut mid-word.
    await api("POST", "/api-keys", { name: "payroll exporter", scope: "read-write" });
    const port = (receiver.address() as AddressInfo).port;
    await api("POST", "/webhooks", {
      url: `http://127.0.0.1:${port}/phone`,
      events: "transaction.created",
    });
    const payee = await api("POST", "/users", {
      username: "obinna",
      user_email: "obinna@example.test",
      user_password: "obinna-password-1",
    });
    await api("POST", "/credits", {
      user_id: Number(payee.id),
      wallet_id: "ngn",
      amount: "20.00",
      request_id: "phone-webhook-event",
    });
    const webhooks = `${server.base}/wallet-admin/webhooks`;
    // Delivered by the queue, a moment after the credit.
    await expect
      .poll(
        async () => {
          await page.goto(webhooks);
          return page.getByRole("button", { name: /^Resend event \d+$/ }).count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    const screens: Screen[] = [
      [
        userPage,
        [
          ["button", /^Capture hold \d+$/],
          ["button", /^Void hold \d+$/],
          ["link", /^Reverse transaction \d+$/],
        ],
      ],
      [`${server.base}/wallet-admin/api-keys`, [["button", /^Revoke key \d+$/]]],
      [webhooks, [["button", /^Resend event \d+$/]]],
    ];
    // On the phone, on the narrowest one, where a hold's Void goes under its Capture, and wider:
    // from 641 px, where they stopped stacking, the holds scrolled sideways (320 px past their
    // card at 641 px) and the entries (510 px), their buttons out of sight.
    await expectControlsOnScreen(screens, WIDTHS);
  });

  it("draws a hold's Capture and Void buttons with their words on one line", async () => {
    await page.goto(userPage);
    for (const name of [/^Capture hold \d+$/, /^Void hold \d+$/]) {
      const button = page.getByRole("button", { name });
      expect(await button.evaluate(textLines), String(name)).toBe(1);
    }
  });

  it("keeps a hold's Void beside its Capture and its note on a line, their cell shorter than two buttons", async () => {
    await page.goto(userPage);
    const row = page.locator("tr", { has: page.getByRole("button", { name: /^Void hold/ }) });
    const [capture, voidBox] = await Promise.all(
      [/^Capture hold \d+$/, /^Void hold \d+$/].map(
        async (name) => (await row.getByRole("button", { name }).boundingBox())!,
      ),
    );
    // Their cell: on a phone the row stacks its cells, the buttons on a line of their own.
    const cell = row.locator("td", { has: page.getByRole("button", { name: /^Void hold/ }) });
    const height = (await cell.boundingBox())!.height;
    const figures = JSON.stringify({ capture, void: voidBox, height });
    // On the line of the amount and Capture, after them, not wrapped beneath them.
    expect(Math.abs(voidBox!.y - capture!.y), figures).toBeLessThan(1);
    expect(voidBox!.x, figures).toBeGreaterThan(capture!.x + capture!.width);
    expect(height, figures).toBeLessThan(2 * capture!.height);
    expect(await row.locator("td.note").evaluate(textLines)).toBe(1);
  });

  it("draws a chart's text at 11 px or more", async () => {
    for (const path of ["/wallet-admin/", userPage]) {
      await page.goto(path.startsWith("http") ? path : `${server.base}${path}`);
      const chart = page.locator("svg.chart").first();
      const sizes = await chart.evaluate((svg: Svg) => {
        const { getComputedStyle } = globalThis as unknown as Window;
        const scale = svg.getScreenCTM().a;
        return [...svg.querySelectorAll("text")].map(
          (t) => Number.parseFloat(getComputedStyle(t).fontSize) * scale,
        );
      });
      expect(sizes.length, path).toBeGreaterThan(4);
      for (const px of sizes) expect(px, path).toBeGreaterThanOrEqual(11);
      // Every label inside the chart, none over another.
      const boxes = await chart
        .locator("text")
        .evaluateAll((texts) => texts.map((t) => t.getBoundingClientRect().toJSON() as Box));
      const frame = (await chart.boundingBox())!;
      for (const [i, a] of boxes.entries()) {
        expect(a.left, path).toBeGreaterThanOrEqual(frame.x - 0.5);
        expect(a.right, path).toBeLessThanOrEqual(frame.x + frame.width + 0.5);
        for (const b of boxes.slice(i + 1)) {
          const apart =
            a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
          expect(apart, `${path}: ${JSON.stringify([a, b])}`).toBe(true);
        }
      }
    }
  });

  it("starts a card's heading at its padding, and keeps a form's fields their height beside a longer form", async () => {
    await page.goto(userPage);
    const card = (await page
      .locator("section", { has: page.getByRole("heading", { name: "Balances" }) })
      .boundingBox())!;
    const heading = (await page.getByRole("heading", { name: "Balances" }).boundingBox())!;
    // 0.75rem of padding on a phone, and the border: no margin of the heading's above it.
    expect(heading.y - card.y).toBeLessThan(14);
    // At desktop width the three money forms stand side by side, Transfer the longest.
    await page.setViewportSize({ width: 1280, height: 900 });
    try {
      const amounts = await Promise.all(
        ["Credit", "Debit", "Transfer"].map(async (name) => {
          const form = page.locator("form", {
            has: page.getByRole("heading", { name, exact: true }),
          });
          return (await form.getByLabel("Amount", { exact: true }).boundingBox())!;
        }),
      );
      expect(amounts.map((box) => Math.round(box.height))).toEqual(
        Array(3).fill(Math.round(amounts[2]!.height)),
      );
      expect(new Set(amounts.map((box) => Math.round(box.y))).size).toBe(1);
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });

  it("shows a statement's day that is none as typed, its refusal beside it and named by it", async () => {
    await page.goto(`${userPage}?wallet=ngn&from=2026-02-31&to=2026-03-05#statement`);
    const from = page.getByLabel("From", { exact: true });
    expect(await from.inputValue()).toBe("2026-02-31");
    expect(await from.getAttribute("aria-invalid")).toBe("true");
    const said = await from.evaluate((input: Node) => {
      const { document } = globalThis as unknown as Window;
      return document.getElementById(input.getAttribute("aria-describedby")!)?.textContent;
    });
    expect(said).toContain("From (2026-02-31) is not a calendar day");
    // Right under the field, before To and the buttons.
    const field = (await from.boundingBox())!;
    const words = (await page.getByText("No statement: From (2026-02-31)").boundingBox())!;
    const toBox = (await page.getByLabel("To", { exact: true }).boundingBox())!;
    expect(words.y).toBeGreaterThanOrEqual(field.y + field.height);
    expect(words.y).toBeLessThan(field.y + field.height + 24);
    expect(toBox.y).toBeGreaterThan(words.y);
    // Typed again as a day, the statement shows, the field a date picker once more.
    await from.fill("2026-02-28");
    await page.getByRole("button", { name: "Show statement" }).click();
    await page.getByRole("table", { name: "Statement totals" }).waitFor();
    expect(await page.getByLabel("From", { exact: true }).getAttribute("type")).toBe("date");
    // A year the server takes no day of is refused by the date picker before anything is sent.
    const to = page.getByLabel("To", { exact: true });
    await to.fill("9999-01-01");
    const overflow = await to.evaluate(
      (input: { validity: { rangeOverflow: boolean } }) => input.validity.rangeOverflow,
    );
    expect(overflow).toBe(true);
  });

  it("keeps a statement's row whole at 1280 px when a day is refused, the words under the field at fault", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    try {
      // To before From: refused beside From.
      await page.goto(`${userPage}?wallet=ngn&from=2026-11-20&to=2026-11-10`);
      const statement = page.locator("#statement");
      const words = (await statement.getByRole("alert").boundingBox())!;
      const controls = await Promise.all(
        [
          // Named by its label and its option chosen, as a select inside its label is.
          statement.locator('select[name="wallet"]'),
          statement.getByLabel("From", { exact: true }),
          statement.getByLabel("To", { exact: true }),
          statement.getByRole("button", { name: "Show statement" }),
          statement.getByRole("button", { name: "Download CSV" }),
        ].map(async (control) => (await control.boundingBox())!),
      );
      // One row, each right of the one before; every field and button level, of one height.
      for (const [i, box] of controls.slice(1).entries())
        expect(box.x, `control ${i + 1}`).toBeGreaterThan(controls[i]!.x);
      for (const [i, box] of controls.entries()) {
        expect(Math.abs(box.y - controls[0]!.y), `control ${i}`).toBeLessThan(1);
        expect(Math.abs(box.height - controls[0]!.height), `control ${i}`).toBeLessThan(1);
      }
      // The words under From, within its width.
      const from = controls[1]!;
      expect(words.y).toBeGreaterThanOrEqual(from.y + from.height);
      expect(words.x).toBeGreaterThanOrEqual(from.x - 1);
      expect(words.x + words.width).toBeLessThanOrEqual(from.x + from.width + 1);
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  });

  it("keeps a user's holds and entries of millions within their cards at any width, their buttons on the screen", async () => {
    // Amounts of an ordinary payroll in naira: at 1280 px the entries scrolled sideways, each
    // Reverse link cut off at the card's edge. One of them in a wallet of a longer id, as the
    // entries name each one's wallet. (The money forms' tests before this one expect one wallet.)
    await api("POST", "/wallets", {
      wallet_id: "ngn_payroll",
      wallet_name: "Naira Payroll",
      wallet_symbol: "₦",
      wallet_decimal: 2,
    });
    const rich = await api("POST", "/users", {
      username: "chidinma",
      user_email: "chidinma@example.test",
      user_password: "chidinma-password-1",
    });
    for (const [i, amount] of ["12345678.90", "2500000.00", "1250000.50"].entries())
      await api("POST", "/credits", {
        user_id: Number(rich.id),
        wallet_id: i === 0 ? "ngn_payroll" : "ngn",
        amount,
        request_id: `console-7d2e9b4c-1a3f-4c8e-b6d5-2f9a0c4e81b${i}`,
        note: "salary for the month",
      });
    await page.setViewportSize({ width: 1280, height: 900 });
    try {
      await page.goto(`${server.base}/wallet-admin/users/${rich.id}`);
      const sideways = await page
        .locator(".scroll")
        .evaluateAll((tables: Scroller[]) => tables.map((e) => e.scrollWidth - e.clientWidth));
      expect(sideways.filter((px) => px > 0)).toEqual([]);
      const frame = (await page.locator("#entries .scroll").boundingBox())!;
      for (const link of await page.getByRole("link", { name: /^Reverse transaction/ }).all()) {
        const box = (await link.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(frame.x + frame.width);
      }
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
    // With a hold of millions too, narrower: from 641 px to 1024 px the holds (up to 397 px past
    // their card, at 641 px) and the entries (up to 594 px) scrolled sideways, their buttons out of
    // sight.
    // Not at 320 px, where the balances of millions scroll, a table with no buttons.
    await api("POST", "/holds", {
      user_id: Number(rich.id),
      wallet_id: "ngn_payroll",
      amount: "1234567.89",
      request_id: "phone-hold-of-millions",
      note: "deposit for order 1",
    });
    const controls: Screen[1] = [
      ["button", /^Capture hold \d+$/],
      ["button", /^Void hold \d+$/],
      ["link", /^Reverse transaction \d+$/],
    ];
    await expectControlsOnScreen(
      [[`${server.base}/wallet-admin/users/${rich.id}`, controls]],
      WIDTHS.filter((width) => width !== 320),
    );
  });

  it("keeps each money form within its card when a wallet's name is long, at any width", async () => {
    // A name as long as one can be (100 characters): its option made the select as wide, which
    // overflowed its card, laid the forms over each other and hid the Credit and Debit buttons'
    // words under the next card. Made last, as the other tests' forms expect one wallet.
    await api("POST", "/wallets", {
      wallet_id: "ngn_savings",
      wallet_name:
        "Nigerian Naira Cooperative Savings Wallet for Members of the Lagos and Abuja Branches 2026",
      wallet_symbol: "₦",
      wallet_decimal: 2,
    });
    for (const width of [390, 800, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(userPage);
      for (const name of ["Credit", "Debit", "Transfer"]) {
        const card = page.locator("form", {
          has: page.getByRole("heading", { name, exact: true }),
        });
        const box = (await card.boundingBox())!;
        const controls = await card
          .locator("select, input:not([type=hidden]), button")
          .evaluateAll((nodes: Node[]) => nodes.map((n) => n.getBoundingClientRect()));
        for (const c of controls)
          expect(c.right, `${width} px, ${name}`).toBeLessThanOrEqual(box.x + box.width);
        // Its button shows its word: nothing of another card lies over the button's middle.
        const submit = card.getByRole("button", { name, exact: true });
        await submit.scrollIntoViewIfNeeded();
        const button = (await submit.boundingBox())!;
        const onTop = await page.evaluate(
          ([x, y]) =>
            (
              globalThis as unknown as {
                document: { elementFromPoint(x: number, y: number): { textContent: string } };
              }
            ).document.elementFromPoint(x!, y!)?.textContent,
          [button.x + button.width / 2, button.y + button.height / 2],
        );
        expect(onTop, `${width} px, ${name}`).toBe(name);
      }
      const scrollWidth = () =>
        (globalThis as unknown as Window).document.documentElement.scrollWidth;
      expect(await page.evaluate(scrollWidth), `${width} px`).toBe(width);
    }
  });
});

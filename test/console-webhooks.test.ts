// The console's webhooks screen (/wallet-admin/webhooks): endpoints, their recent deliveries, the
// test and resend buttons, all through the API in-process.
import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import type { Outbound } from "../src/events/deliver";
import { consoleOf, form, hidden, noticeLeft } from "./console-helpers";
import { call, credit, makeAdmin, makeUser, makeWallet, type TestUser, testApp } from "./helpers";

const got: { headers: Record<string, string>; body: string }[] = [];
const outbound: Outbound = async (url, init) => {
  // A receiver under /down/ cannot be reached: workerd's error quotes the URL whole.
  if (url.includes("/down/")) throw new TypeError(`Fetch API cannot load: ${url}`);
  got.push({
    headers: Object.fromEntries(new Headers(init.headers).entries()),
    body: String(init.body),
  });
  return new Response(null, { status: 200 });
};
const app = testApp({ outbound });
const { request, signIn, follow } = consoleOf(app);

/** What a redirect's cookies hold, as the browser would store them (percent-decoded). */
const cookieBytes = (res: { headers: Headers }) =>
  res.headers
    .getSetCookie()
    .map((c) => decodeURIComponent(c))
    .join("\n");
/** A webhook URL whose path and query are the receiver's secret, as Slack's are. */
const SECRET_URL = "https://hooks.example.com/services/T0AAAA/B0BBBB/XXXX?token=hush";

let admin: TestUser;
let cookie: string;

beforeAll(async () => {
  admin = await makeAdmin();
  cookie = await signIn(admin);
});

describe("the console's webhooks screen", () => {
  it("creates a webhook from its form and shows the secret once, then lists it without", async () => {
    const page = await request("/webhooks", { cookie });
    expect(page.status).toBe(200);
    const created = await request("/webhooks", {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(page.html, "_csrf"),
        url: "https://hooks.example.com/console",
        events: "transaction.created, user.created",
        description: "shop",
      }),
    });
    expect(created.status).toBe(303);
    expect(created.html).not.toMatch(/whsec_/);
    const shown = await follow(created, cookie);
    expect(shown.html).toContain("copy its signing secret now, it is not shown again");
    const secret = shown.html.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(secret).toBeDefined();
    const again = await request("/webhooks", { cookie });
    expect(again.html).toContain("https://hooks.example.com/console");
    expect(again.html).not.toContain(secret!);
    // Its events and state in a sentence, its description in a paragraph of its own. New, it has
    // delivered nothing: it starts after the newest event.
    expect(again.html).toMatch(
      /<section><h2>Webhook \d+: https:\/\/hooks\.example\.com\/console<\/h2><p class="muted">transaction\.created, user\.created\. Active; sends events after event \d+<\/p><p>shop<\/p>/,
    );
  });

  it("says when an endpoint backing off may be tried again, not that it was", async () => {
    const page = await request("/webhooks", { cookie });
    const made = await request("/webhooks", {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(page.html, "_csrf"),
        url: "https://hooks.example.com/backing-off",
        events: "transaction.created",
      }),
    });
    const id = Number(noticeLeft(made).match(/Webhook (\d+) created/)![1]);
    // Three failed attempts at its next event, the next not before this instant (a queue may
    // bring it later: the time passes and the page still shows it).
    const at = Date.UTC(2026, 10, 30, 14, 5, 9);
    await env.DB.prepare(
      "UPDATE webhook_endpoints SET head_attempts = 3, next_attempt_at_ms = ? WHERE id = ?",
    )
      .bind(at, id)
      .run();
    const listed = await request("/webhooks", { cookie });
    const section = listed.html.split("<section>").find((s) => s.includes("/backing-off<"))!;
    expect(section).toContain(
      '; 3 failed attempt(s) at the next event, next try not before <time datetime="2026-11-30T14:05:09Z"><span>2026-11-30</span> <span>14:05:09</span></time> UTC',
    );
  });

  it("shows each new secret on its own list when two tabs make a key and a webhook in the same minute", async () => {
    const keys = await request("/api-keys", { cookie });
    const hooks = await request("/webhooks", { cookie });
    const key = await request("/api-keys", {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(keys.html, "_csrf"), name: "tab one", scope: "read" }),
    });
    const hook = await request("/webhooks", {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(hooks.html, "_csrf"),
        url: "https://hooks.example.com/tab-two",
        events: "user.created",
      }),
    });
    // The browser holds both answers' cookies when each tab follows its redirect.
    const jar = [key, hook]
      .flatMap((res) => res.headers.getSetCookie())
      .map((c) => c.split(";")[0])
      .join("; ");
    const webhooksPage = await request("/webhooks", { cookie: `${cookie}; ${jar}` });
    expect(webhooksPage.html).toMatch(/whsec_[A-Za-z0-9+/=]+/);
    const keysPage = await request("/api-keys", { cookie: `${cookie}; ${jar}` });
    expect(keysPage.html).toContain("copy it now, it is not shown again");
  });

  it("shows a refused URL as the API words it and creates nothing", async () => {
    const page = await request("/webhooks", { cookie });
    const res = await request("/webhooks", {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(page.html, "_csrf"),
        url: "https://10.0.0.1/x",
        events: "user.created",
      }),
    });
    expect(res.status).toBe(303);
    expect((await follow(res, cookie)).html).toContain(
      "url must not point at a private, loopback or link-local address",
    );
  });

  it("lists an endpoint's deliveries and resends one with its button, signed", async () => {
    const hook = (
      await call("POST", "/webhooks", {
        auth: admin.bearer,
        body: { url: "https://hooks.example.com/resend", events: "transaction.created" },
      })
    ).body.data;
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 4 });
    const [event] = (
      await call("GET", "/events", { auth: admin.bearer, query: { after: hook.last_event_id } })
    ).body.data;
    await call("POST", `/webhooks/${hook.id}/resend`, {
      auth: admin.bearer,
      app,
      body: { event_id: event.id },
    });
    const page = await request("/webhooks", { cookie });
    expect(page.html).toContain(`Resend event ${event.id}`);
    const before = got.length;
    const res = await request(`/webhooks/${hook.id}/resend`, {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(page.html, "_csrf"), event_id: event.id }),
    });
    expect(res.status).toBe(303);
    expect(noticeLeft(res)).toContain(`Event ${event.id} sent again: delivered.`);
    expect(got).toHaveLength(before + 1);
    expect(new Webhook(hook.secret).verify(got.at(-1)!.body, got.at(-1)!.headers)).toStrictEqual(
      event,
    );
  });

  it("shows each endpoint its own 10 newest deliveries, newest first", async () => {
    const subscribe = async (path: string) =>
      (
        await call("POST", "/webhooks", {
          auth: admin.bearer,
          body: { url: `https://hooks.example.com/${path}`, events: "transaction.created" },
        })
      ).body.data;
    const [busy, quiet] = [await subscribe("busy"), await subscribe("quiet")];
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    for (let i = 0; i < 12; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const events = (
      await call("GET", "/events", {
        auth: admin.bearer,
        query: { after: busy.last_event_id, types: "transaction.created" },
      })
    ).body.data as { id: number }[];
    expect(events).toHaveLength(12);
    const resend = (hook: { id: number }, eventId: number) =>
      call("POST", `/webhooks/${hook.id}/resend`, {
        auth: admin.bearer,
        app,
        body: { event_id: eventId },
      });
    for (const e of events) await resend(busy, e.id);
    await resend(quiet, events[0]!.id);
    const html = (await request("/webhooks", { cookie })).html;
    const resent = (hook: { id: number }) =>
      [
        ...html
          .split("<section>")
          .find((part) => part.includes(`Webhook ${hook.id}: `))!
          .matchAll(/Resend event (\d+)/g),
      ].map((m) => Number(m[1]));
    expect(resent(busy)).toEqual(
      events
        .slice(2)
        .map((e) => e.id)
        .reverse(),
    );
    expect(resent(quiet)).toEqual([events[0]!.id]);
  });

  it("sends a test from its button and refuses a button without the form's CSRF token", async () => {
    const hook = (
      await call("POST", "/webhooks", {
        auth: admin.bearer,
        body: { url: "https://hooks.example.com/t", events: "user.created" },
      })
    ).body.data;
    const page = await request("/webhooks", { cookie });
    // The browser asks before a deletion (console.js); a test is sent unasked.
    expect(page.html).toContain(
      `action="/wallet-admin/webhooks/${hook.id}/delete" data-confirm="Delete webhook ${hook.id} (https://hooks.example.com/t)?`,
    );
    expect(page.html).toContain(`action="/wallet-admin/webhooks/${hook.id}/test"><input`);
    const ok = await request(`/webhooks/${hook.id}/test`, {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(page.html, "_csrf") }),
    });
    expect(noticeLeft(ok)).toContain(`Test to webhook ${hook.id}: delivered.`);
    const before = got.length;
    const forged = await request(`/webhooks/${hook.id}/test`, {
      method: "POST",
      cookie,
      body: form({}),
    });
    expect(forged.status).toBe(403);
    expect(got).toHaveLength(before);
  });

  it("keeps a refused URL out of the notice cookie, which is signed but not sealed: the form comes back without it", async () => {
    const page = await request("/webhooks", { cookie });
    // The URL comes back empty, marked when it is the field at fault, described by the words under
    // it that say why it is empty.
    const marked = ' aria-invalid="true" aria-describedby="notice url-not-kept"';
    const unmarked = ' aria-describedby="url-not-kept"';
    for (const [url, events, why, urlMark] of [
      [SECRET_URL.replace("hooks.example.com", "10.0.0.1"), "user.created", "private", marked],
      [SECRET_URL, "no.such", "no.such", unmarked],
    ] as const) {
      const res = await request("/webhooks", {
        method: "POST",
        cookie,
        body: form({ _csrf: hidden(page.html, "_csrf"), url, events, description: "kept" }),
      });
      expect(res.status, why).toBe(303);
      expect(cookieBytes(res), why).not.toMatch(/T0AAAA|hush/);
      const shown = await follow(res, cookie);
      expect(shown.html, why).toContain(why);
      expect(shown.html, why).toContain(
        `<input name="url" type="url" required="" autocomplete="off"${urlMark}/>`,
      );
      expect(shown.html, why).toContain(`name="events" value="${events}"`);
      expect(shown.html, why).toContain('name="description" autocomplete="off" value="kept"');
    }
  });

  it("names an endpoint it could not reach by its origin in the test's notice", async () => {
    const hook = (
      await call("POST", "/webhooks", {
        auth: admin.bearer,
        body: { url: SECRET_URL.replace("/services/", "/down/"), events: "user.created" },
      })
    ).body.data;
    const page = await request("/webhooks", { cookie });
    const res = await request(`/webhooks/${hook.id}/test`, {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(page.html, "_csrf") }),
    });
    expect(noticeLeft(res)).toBe(
      `error:Test to webhook ${hook.id}: failed (could not connect: Fetch API cannot load: https://hooks.example.com).`,
    );
    expect(cookieBytes(res)).not.toMatch(/T0AAAA|hush/);
  });
});

// SITE_URL unset: the service names the address each request came to, and an entry's guid keeps the
// address it was written through (src/http/site.ts, src/ledger/append.ts).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  API,
  importedEntry,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  testApp,
  unique,
} from "./helpers";

const A = "https://wallet-ledger.someone.workers.dev";
const B = "https://wallet.example.com";
const CONFIGURED = "https://ledger.example.org";
const COMPAT = "/wp-json/rimplenet/v1";

type Vars = { SITE_URL?: string; COMPAT_NAMESPACE?: string };

/** One request to `url` (its own host), SITE_URL unset unless `vars` set it. */
async function at(
  url: string,
  {
    method = "GET",
    auth,
    body,
    vars = {},
  }: { method?: string; auth?: TestUser; body?: Json; vars?: Vars } = {},
) {
  const headers: Record<string, string> = {};
  if (auth) headers.Authorization = auth.bearer;
  if (body) headers["Content-Type"] = "application/json";
  const res = await testApp().request(
    url,
    { method, headers, body: body && JSON.stringify(body) },
    { ...env, SITE_URL: "", COMPAT_NAMESPACE: "rimplenet", ...vars },
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text || "{}") as Json };
}

async function storedGuid(id: number) {
  const row = await env.DB.prepare("SELECT guid, slug FROM transactions WHERE id = ?")
    .bind(id)
    .first<{ guid: string | null; slug: string }>();
  return row!;
}

/** Every entry of a user, read through `host`. */
async function history(host: string, admin: TestUser, userId: number, vars: Vars = {}) {
  const res = await at(`${host}${API}/transactions?user_id=${userId}&order=asc&security_code=1`, {
    auth: admin,
    vars,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json[];
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("SITE_URL unset", () => {
  // First in the file: the notice is logged once per isolate.
  it("logs once, as a JSON line naming SITE_URL, that the request's origin is used", async () => {
    const log = vi.spyOn(console, "log");
    for (const host of [A, B, A]) expect((await at(`${host}/`)).status).toBe(200);
    const notices = log.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Json)
      .filter((line) => line.setting === "SITE_URL");
    expect(notices).toHaveLength(1);
    expect(notices[0]!.notice).toMatch(/SITE_URL is unset/);
  });

  it("names the request's origin in GET /, its Link header, the discovery index and the OpenAPI servers", async () => {
    for (const host of [A, B, "http://127.0.0.1:8788"]) {
      const front = await at(`${host}/`);
      expect(front.body).toEqual({
        name: "Wallet ledger",
        api: `${host}/wp-json/`,
        console: `${host}/wallet-admin/`,
        reference: `${host}/api-reference`,
      });
      expect(front.headers.get("link")).toBe(`<${host}/wp-json/>; rel="https://api.w.org/"`);
      const index = await at(`${host}/wp-json/`);
      expect(index.body).toMatchObject({
        url: host,
        home: host,
        console: `${host}/wallet-admin/`,
        reference: `${host}/api-reference`,
      });
      expect(index.headers.get("link")).toBe(`<${host}/wp-json/>; rel="https://api.w.org/"`);
      const openApi = await at(`${host}${API}/openapi.json`);
      expect(openApi.body.servers).toEqual([{ url: host }]);
    }
  });

  it("builds the paging Link headers of GET /transactions and of the plugin's lists on the request's origin", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    for (let i = 0; i < 3; i++)
      await at(`${A}${API}/credits`, {
        method: "POST",
        auth: admin,
        body: { user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("r") },
      });
    const paged = await at(
      `${B}${API}/transactions?user_id=${user.id}&per_page=1&page=2&security_code=1`,
      {
        auth: admin,
      },
    );
    const query = `user_id=${user.id}&per_page=1`;
    expect(paged.headers.get("link")).toBe(
      `<${B}${API}/transactions?${query}&page=1&security_code=1>; rel="prev", ` +
        `<${B}${API}/transactions?${query}&page=3&security_code=1>; rel="next", ` +
        `<${B}/wp-json/>; rel="https://api.w.org/"`,
    );
    const plugin = await at(`${B}${COMPAT}/credits?per_page=1`, { auth: admin });
    expect(plugin.status, plugin.text).toBe(200);
    expect(plugin.headers.get("link")).toBe(
      `<${B}${COMPAT}/credits?per_page=1&page=2>; rel="next", <${B}/wp-json/>; rel="https://api.w.org/"`,
    );
  });

  it("keeps the guid of an entry written through host A when it is read through host B, on every write path", async () => {
    const admin = await makeAdmin();
    const [user, other] = [await makeUser(), await makeUser()];
    const wallet = await makeWallet(admin);
    const write = (path: string, body: Json) =>
      at(`${A}${path}`, {
        method: "POST",
        auth: admin,
        body: { request_id: unique("r"), ...body },
      });
    const credit = await write(`${API}/credits`, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 50,
    });
    const debit = await write(`${API}/debits`, { user_id: user.id, wallet_id: wallet, amount: 5 });
    const transfer = await write(`${API}/transfers`, {
      from_user_id: user.id,
      to_user_id: other.id,
      wallet_id: wallet,
      amount: 3,
    });
    const reversal = await write(
      `${API}/transactions/${debit.body.data.transaction_id}/reverse`,
      {},
    );
    const pluginCredit = await write(`${COMPAT}/credits`, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "2",
      request_id: unique("pc"),
    });
    const pluginTransfer = await write(`${COMPAT}/transfers`, {
      transfer_from_user: user.id,
      transfer_to_user: other.id,
      wallet_id: wallet,
      amount_to_transfer: "1",
      request_id: unique("pt"),
    });
    for (const res of [credit, debit, transfer, reversal, pluginCredit, pluginTransfer])
      expect(res.status, res.text).toBe(200);

    const read = [...(await history(B, admin, user.id)), ...(await history(B, admin, other.id))];
    // The credit, the debit and its reversal, the plugin's credit, and both halves of each transfer.
    expect(read).toHaveLength(8);
    for (const record of read) {
      expect(record.guid).toBe(`${A}/wallettransaction/${record.post_name}/`);
      expect(await storedGuid(record.ID)).toEqual({ guid: record.guid, slug: record.post_name });
    }
    const one = await at(`${B}${API}/transactions/${credit.body.data.transaction_id}`, {
      auth: admin,
    });
    expect(one.body.data.guid).toBe(`${A}/wallettransaction/${one.body.data.post_name}/`);
    // With SITE_URL set later, a stored guid still names the host it was written through.
    const [first] = await history(B, admin, user.id, { SITE_URL: CONFIGURED });
    expect(first!.guid).toBe(`${A}/wallettransaction/${first!.post_name}/`);
  });

  it("writes an entry whose guid an imported entry already holds, its guid then built when read", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const nowMs = Date.UTC(2022, 8, 5, 14, 15, 7);
    const post = () =>
      testApp({ nowMs: () => nowMs }).request(
        `${A}${API}/credits`,
        {
          method: "POST",
          headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
          body: JSON.stringify({
            user_id: user.id,
            wallet_id: wallet,
            amount: 7,
            request_id: unique("r"),
          }),
        },
        { ...env, SITE_URL: "" },
      );
    const first = (await (await post()).json<Json>()).data.transaction_id as number;
    // The next entry of that title and second takes `<slug>-2`: an imported post holds its guid.
    const taken = `${A}/wallettransaction/${(await storedGuid(first)).slug}-2/`;
    const stranger = await makeUser();
    await importedEntry(stranger.id, wallet, "CREDIT", 100, "1", 0, 1, { guid: taken });
    const second = await post();
    expect(second.status).toBe(200);
    const id = (await second.json<Json>()).data.transaction_id as number;
    expect(await storedGuid(id)).toEqual({
      guid: null,
      slug: `${(await storedGuid(first)).slug}-2`,
    });
  });
});

describe("SITE_URL set", () => {
  it("stores no guid and builds it from SITE_URL on any host, as before", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const vars = { SITE_URL: `${CONFIGURED}/` };
    const res = await at(`${A}${API}/credits`, {
      method: "POST",
      auth: admin,
      body: { user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("r") },
      vars,
    });
    expect(res.status, res.text).toBe(200);
    expect((await storedGuid(res.body.data.transaction_id)).guid).toBeNull();
    const [record] = await history(B, admin, user.id, vars);
    expect(record!.guid).toBe(`${CONFIGURED}/wallettransaction/${record!.post_name}/`);
    const front = await at(`${B}/`, { vars });
    expect(front.body.api).toBe(`${CONFIGURED}/wp-json/`);
    expect(front.headers.get("link")).toBe(`<${CONFIGURED}/wp-json/>; rel="https://api.w.org/"`);
    expect((await at(`${B}${API}/openapi.json`, { vars })).body.servers).toEqual([
      { url: CONFIGURED },
    ]);
  });
});

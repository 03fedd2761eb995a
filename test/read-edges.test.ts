// Edges of the read side found by attacking it: paging headers, statements, the feed and figures.
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import { API, call, credit, makeAccount } from "./helpers";

/** An account whose user has `n` credits of 1: a list of `n` entries to page. */
async function withCredits(n: number) {
  const account = await makeAccount();
  const { admin, user, wallet } = account;
  for (let i = 0; i < n; i++)
    expect((await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1" })).status).toBe(
      200,
    );
  return account;
}

describe("paging Link headers", () => {
  it("GET /transactions pages on a SITE_URL with a path keep that path, as discovery does", async () => {
    const { admin, user } = await withCredits(3);
    const res = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: "0", per_page: 1, page: 2 },
      vars: { SITE_URL: "https://example.org/blog" },
    });
    expect(res.status, res.text).toBe(200);
    const list = `https://example.org/blog/wp-json/wallet/v1/transactions?user_id=${user.id}&security_code=0&per_page=1`;
    expect(res.headers.get("link")).toBe(
      `<${list}&page=1>; rel="prev", <${list}&page=3>; rel="next", <https://example.org/blog/wp-json/>; rel="https://api.w.org/"`,
    );
  });

  it("GET /transactions links name the page PHP reads, when another spelling of page was sent too", async () => {
    const { admin, user } = await withCredits(5);
    // PHP registers ` page` as `page`, and of two the last counts: this asks for page 2.
    const query = `user_id=${user.id}&security_code=0&per_page=2&page=1&%20page=2`;
    const res = await call("GET", `${API}/transactions?${query}`, { auth: admin.bearer });
    expect(res.status, res.text).toBe(200);
    const [prev, next] = [
      ...res.headers.get("link")!.matchAll(/<([^>]+)>; rel="(?:prev|next)"/g),
    ].map((m) => m[1]!);
    const ids = async (link: string) => {
      const url = new URL(link);
      const page = await call("GET", `${url.pathname}${url.search}`, { auth: admin.bearer });
      return page.body.data.map((e: { ID: number }) => e.ID);
    };
    const all = (
      await call("GET", "/transactions", {
        auth: admin.bearer,
        query: { user_id: user.id, security_code: "0" },
      })
    ).body.data.map((e: { ID: number }) => e.ID);
    expect(res.body.data.map((e: { ID: number }) => e.ID)).toEqual(all.slice(2, 4));
    expect(await ids(prev!)).toEqual(all.slice(0, 2));
    expect(await ids(next!)).toEqual(all.slice(4, 6));
  });

  it("the plugin's GET credits links its next page, when a page[] was sent beside page", async () => {
    const { admin } = await withCredits(2);
    const get = (query: string) =>
      compatCall("GET", `/wp-json/rimplenet/v1/credits?${query}`, {
        headers: { Authorization: admin.bearer },
        vars: GUARDED,
      });
    // `page[]` after `page` makes PHP's page an array, which the plugin's reading takes as page 1.
    const first = await get("per_page=1&page=2&page%5B%5D=x");
    expect(first.status, first.text).toBe(200);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link")!)![1]!;
    const second = await get(new URL(next).search.slice(1));
    expect(second.status, second.text).toBe(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
  });

  it("the OpenAPI document names Link's relations in the order a page's answer sends them", async () => {
    const { admin, user } = await withCredits(3);
    const page = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: "0", per_page: 1, page: 2 },
    });
    const sent = [...page.headers.get("link")!.matchAll(/rel="([^"]+)"/g)].map((m) => m[1]!);
    expect(sent).toEqual(["prev", "next", "https://api.w.org/"]);
    const doc = await call("GET", "/openapi.json");
    const described = doc.body.components.headers.Link.description as string;
    const at = (rel: string) => described.indexOf(`rel="${rel}"`);
    expect(sent.map(at).every((i, n, all) => i !== -1 && (n === 0 || i > all[n - 1]!))).toBe(true);
  });
});

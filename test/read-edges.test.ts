// Edges of the read side found by attacking it: paging headers, statements, the feed and figures.
import { describe, expect, it } from "vitest";
import { call, credit, makeAccount } from "./helpers";

describe("paging Link headers", () => {
  it("GET /transactions pages on a SITE_URL with a path keep that path, as discovery does", async () => {
    const { admin, user, wallet } = await makeAccount();
    for (let i = 0; i < 3; i++)
      expect(
        (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1" })).status,
      ).toBe(200);
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
});

// The TypeScript client (clients/typescript) with a stubbed fetch: an answer that is not the
// service's JSON (a proxy's HTML page, an empty or truncated body) rejects with
// WalletTransportError, so a call resolves only to `{ data }` or an envelope in `{ error }`.
import { describe, expect, it } from "vitest";
import { createWalletClient, WalletTransportError } from "../../clients/typescript";

const credit = {
  body: { user_id: 7, wallet_id: "ngn", request_id: "order-1001", amount: "12.50" },
};

const answering = (make: () => Response) => {
  const sent: Request[] = [];
  const wallet = createWalletClient("https://wallet.example.test/", {
    auth: { username: "admin", key: "k" },
    fetch: async (request: Request) => {
      sent.push(request);
      return make();
    },
  });
  return { wallet, sent };
};

const json = (status: number, body: string) => () =>
  new Response(body, { status, headers: { "Content-Type": "application/json; charset=UTF-8" } });

describe("the TypeScript client, on an answer that is not the service's JSON", () => {
  it.each([
    ["an HTML 502", () => new Response("<html>Bad gateway</html>", { status: 502 }), 502],
    ["an empty 200", () => new Response("", { status: 200 }), 200],
    ["a 200 without a body", () => new Response(null, { status: 200 }), 200],
    ["a truncated 200", json(200, '{"status_code":200,"status":true,'), 200],
    ["a truncated 409", json(409, '{"status_code":409,"status":false,"mess'), 409],
    ["a JSON text in place of an envelope", json(503, '"busy"'), 503],
  ])("rejects %s with WalletTransportError", async (_, make, status) => {
    const { wallet } = answering(make);
    const call = wallet.createCredit(credit);
    await expect(call).rejects.toBeInstanceOf(WalletTransportError);
    await expect(call).rejects.toMatchObject({ status });
  });

  it("still answers an envelope or WordPress's own error as { error }, and a success as { data }", async () => {
    const refused = answering(
      json(
        409,
        '{"status_code":409,"status":false,"message":"Transaction already exists","error":{"txn_id":"3","exist":"Transaction already executed"}}',
      ),
    );
    const { error } = await refused.wallet.createCredit(credit);
    expect(error).toMatchObject({ status: false, message: "Transaction already exists" });
    const wordpress = answering(
      json(
        400,
        '{"code":"rest_invalid_json","message":"Invalid JSON body passed.","data":{"status":400}}',
      ),
    );
    const invalid = await wordpress.wallet.POST("/wp-json/wallet/v1/credits", credit);
    expect(invalid.error && "code" in invalid.error).toBe(true);
    const ok = answering(
      json(
        200,
        '{"status_code":200,"status":true,"message":"Transaction Completed","data":{"transaction_id":1,"user_id":7}}',
      ),
    );
    const { data } = await ok.wallet.createCredit(credit);
    expect(data?.data.transaction_id).toBe(1);
    expect(await ok.sent[0]!.text()).toBe(
      '{"user_id":7,"wallet_id":"ngn","request_id":"order-1001","amount":"12.50"}',
    );
  });

  it("leaves an answer read as text to the caller", async () => {
    const { wallet } = answering(() => new Response("user,amount\n", { status: 200 }));
    const csv = await wallet.GET("/wp-json/wallet/v1/statements", {
      params: { query: { user_id: 7, wallet_id: "ngn", format: "csv" } },
      parseAs: "text",
    });
    expect(csv.data).toBe("user,amount\n");
  });

  it("lets a network failure reject as fetch rejects it", async () => {
    const wallet = createWalletClient("https://wallet.example.test", {
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    await expect(wallet.readBalance({ params: { query: { wallet_id: "ngn" } } })).rejects.toThrow(
      "fetch failed",
    );
  });
});

import { describe, expect, it } from "vitest";
import { call, makeAdmin, makeUser } from "./helpers";

/**
 * A read route's unknown `wallet_id` filter is a field error like any other: named beside the
 * request's other field errors, as a malformed one (`bad$chars`, same text) and a money route's
 * unknown wallet are, rather than only once every other field is right.
 */
describe("an unknown wallet_id filter beside other field errors", () => {
  const routes: [string, Record<string, string>][] = [
    ["/transactions", { security_code: "0" }],
    ["/statements", {}],
    ["/holds", {}],
  ];
  for (const [path, base] of routes) {
    it(`${path} names it as it names a malformed one`, async () => {
      const admin = await makeAdmin();
      const ada = await makeUser();
      const others: Record<string, string>[] = [
        { user_id: "abc" },
        { user_id: String(ada.id), page: "0" },
      ];
      for (const other of others) {
        const answers = [];
        for (const wallet_id of ["nosuch", "bad$chars"]) {
          const r = await call("GET", path, {
            auth: admin.bearer,
            query: { ...base, ...other, wallet_id },
          });
          answers.push({ status: r.status, error: r.body.error });
        }
        expect(answers[0], JSON.stringify(other)).toEqual(answers[1]);
        expect(answers[0]!.status).toBe(400);
        expect(answers[0]!.error.wallet_id).toBe("wallet_id not found");
      }
    });
  }
});

describe("GET /user-wallet-balance's unknown wallet beside other field errors", () => {
  it("names an unknown wallet as it names a malformed one, its own id in the text", async () => {
    const admin = await makeAdmin();
    const ada = await makeUser();
    const others: Record<string, string>[] = [
      { user_id: "abc" },
      { user_id: String(ada.id), at: "bad" },
    ];
    for (const other of others) {
      const unknown = await call("GET", "/user-wallet-balance", {
        auth: admin.bearer,
        query: { ...other, wallet_id: "nosuch" },
      });
      const malformed = await call("GET", "/user-wallet-balance", {
        auth: admin.bearer,
        query: { ...other, wallet_id: "bad$chars" },
      });
      expect(unknown.status).toBe(400);
      expect(Object.keys(unknown.body.error), JSON.stringify(other)).toEqual(
        Object.keys(malformed.body.error),
      );
      expect(unknown.body.error.wallet_id).toBe("wallet_id not found: nosuch");
    }
  });
});

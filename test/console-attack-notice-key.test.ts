// hono/jwt signs an access token as a signed cookie is signed (HMAC-SHA-256 of the text before the
// last dot), so under one key any access token, re-spelled (its base64url signature as base64 with
// its `=`), would be a notice cookie the console signed, and reading it would fail every page that
// shows notices. docs/console.md: a cookie this service did not sign is not shown; docs/security.md
// names the page on another port of the same host as one that can set the console's cookies. The
// console signs under keys of its own (session.ts consoleKey), so such a cookie is ignored.
import { describe, expect, it } from "vitest";
import { consoleOf, NOTICE } from "./console-helpers";
import { makeAdmin, makeUser } from "./helpers";

const { request, signIn } = consoleOf();

/** An access token as a signed cookie value: `header.payload.<signature in base64, padded>`. */
function asSignedCookie(token: string) {
  const at = token.lastIndexOf(".");
  const signature = `${token
    .slice(at + 1)
    .replace(/-/g, "+")
    .replace(/_/g, "/")}=`;
  return encodeURIComponent(`${token.slice(0, at)}.${signature}`);
}

describe("a notice cookie made of an access token (signed with the same key)", () => {
  it("is ignored by the sign-in page, not answered 500", async () => {
    // Anyone with an account has such a token: POST /users/login gives a subscriber one.
    const subscriber = await makeUser();
    const planted = `${NOTICE}=${asSignedCookie(subscriber.token)}`;
    const page = await request("/sign-in", { cookie: planted });
    expect(page.status, page.html.slice(0, 300)).toBe(200);
    expect(page.html).toContain("Sign in");
  });

  it("is ignored by a signed-in operator's pages, not answered 500", async () => {
    const subscriber = await makeUser();
    const operator = await signIn(await makeAdmin());
    const cookie = `${operator}; ${NOTICE}=${asSignedCookie(subscriber.token)}`;
    for (const path of ["/", "/users", "/wallets", "/api-keys", "/webhooks"]) {
      const page = await request(path, { cookie });
      expect(page.status, `${path}: ${page.html.slice(0, 300)}`).toBe(200);
    }
  });
});

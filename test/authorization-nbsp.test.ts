import { describe, expect, it } from "vitest";
import { GUARDED } from "./compat-helpers";
import { call, INVALID_CREDENTIALS, makeKey, makeUser } from "./helpers";

// docs/security.md, input limits: the Authorization header must be printable ASCII, anything else
// is no credential and answers 401 "Invalid credentials" like every bad credential. U+00A0 (the
// Latin-1 byte 0xA0 a header can carry) is white space to String.prototype.trim, not to HTTP, so
// it must reach that check rather than be cut from the header's ends.
describe("an Authorization header with a non-ASCII byte at either end", () => {
  it("is no credential on wallet/v1, for a token and for a key", async () => {
    const user = await makeUser();
    const { header: key } = await makeKey(user, "read");
    const headers = [
      `${user.bearer}\u00a0`,
      `\u00a0${user.bearer}`,
      `${key}\u00a0`,
      `\u00a0${key}`,
    ];
    const statuses: number[] = [];
    for (const auth of headers)
      statuses.push((await call("GET", "/user-wallet-balance", { auth })).status);
    // A credential that passed would answer 400 here, the missing wallet_id's validation error.
    expect(statuses).toEqual([401, 401, 401, 401]);
    const res = await call("GET", "/user-wallet-balance", { auth: `${user.bearer}\u00a0` });
    expect(res.body).toEqual(INVALID_CREDENTIALS);
  });

  it("is no credential in the plugin's dialect either", async () => {
    const user = await makeUser();
    const res = await call("GET", `/wp-json/rimplenet/v1/users?user_id=${user.id}`, {
      auth: `${user.bearer}\u00a0`,
      vars: GUARDED,
    });
    // A credential that does not verify answers 400 "Validation error" ["Invalid signature"] there
    // (docs/compat.md, Routes); one that passed would answer 200.
    expect(res.status).toBe(400);
  });
});

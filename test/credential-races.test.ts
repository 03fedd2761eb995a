// A credential revoked while a request that uses it is between its D1 read and its answer: that
// request may still act (it read before the revocation), but what it read must not be remembered,
// or every later request of the isolate would act on a credential revoked before it was sent.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../src/auth/api-keys";
import { holdingFirstRead } from "./d1-counter";
import {
  call,
  INVALID_CREDENTIALS,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  signedToken,
  unique,
} from "./helpers";

describe("a credential revoked while a request using it is in flight", () => {
  it("an API key: the isolate that revoked it refuses the next money write", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const { key, header } = await makeKey(admin, "write");
    const id = await env.DB.prepare("SELECT id FROM api_keys WHERE key_hash = ?")
      .bind(hashApiKey(key))
      .first<number>("id");
    const { d1, reachedRead, release } = holdingFirstRead("api_keys");
    const creditWith = (auth: string) =>
      call("POST", "/credits", {
        auth,
        d1,
        body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: unique("r") },
      });
    const inFlight = creditWith(header); // reads the key (live), then waits
    await reachedRead;
    const revoked = await call("DELETE", `/api-keys/${id}`, { auth: admin.bearer, d1 });
    expect(revoked.status).toBe(200);
    release();
    await inFlight; // read before the revocation: either answer is fair
    expect((await creditWith(header)).body).toEqual(INVALID_CREDENTIALS);
  });

  it("an access token: the isolate that signed it out refuses the next money write", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const { token } = await signedToken(admin);
    const auth = `Bearer ${token}`;
    const { d1, reachedRead, release } = holdingFirstRead("sessions");
    const creditWith = () =>
      call("POST", "/credits", {
        auth,
        d1,
        body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: unique("r") },
      });
    const inFlight = creditWith(); // reads the session (live), then waits
    await reachedRead;
    expect((await call("POST", "/users/logout", { auth, d1 })).status).toBe(200);
    release();
    await inFlight;
    expect((await creditWith()).body).toEqual(INVALID_CREDENTIALS);
  });
});

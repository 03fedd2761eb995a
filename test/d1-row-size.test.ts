// A limit Cloudflare's D1 keeps that local D1 does not (docs/scaling.md#where-one-database-ends):
// locally a row of 3,000,000 bytes is stored without complaint, so this test holds the code to its
// own bound, the most a client can make, rather than wait for production to refuse it.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import scalingMd from "../docs/scaling.md?raw";
import { MAX_BODY_BYTES } from "../src/http/body-limit";
import { REQUEST_ID_MAX, USERNAME_MAX } from "../src/http/fields";
import { MAX_OPERATIONS } from "../src/wallet/batches";
import { WALLET_LIMITS } from "../src/wallet/wallet-shape";
import { call, credit, makeAdmin, makeUser, makeWallet, unique } from "./helpers";

/** D1's "Maximum string, BLOB or table row size" (developers.cloudflare.com/d1/platform/limits/). */
const D1_ROW_MAX_BYTES = 2_000_000;

/** A form's `%01` is three bytes of body and six of JSON once stored ("\u0001"): the most growth. */
const GROWS = "\u0001";

it("the largest event a client can make, a batch's, stays under D1's 2,000,000-byte row", async () => {
  const admin = await makeAdmin();
  // The longest names and texts each entry of the batch repeats, in four-byte characters.
  const named = () => makeUser("subscriber", unique("u").padEnd(USERNAME_MAX, "x"));
  const [from, to] = [await named(), await named()];
  const wallet = await makeWallet(admin, {
    name: "💰".repeat(WALLET_LIMITS.nameMax),
    symbol: "💰".repeat(WALLET_LIMITS.symbolMax),
  });
  const funded = await credit(admin, {
    user_id: from.id,
    wallet_id: wallet,
    amount: String(MAX_OPERATIONS),
    request_id: unique("fund"),
  });
  expect(funded.status, funded.text).toBe(200);
  const form = (noteChars: number) => {
    const body = new URLSearchParams({
      request_id: `a${GROWS.repeat(REQUEST_ID_MAX - 2)}a`,
    });
    for (let i = 0; i < MAX_OPERATIONS; i++) {
      body.set(`operations[${i}][type]`, "transfer");
      body.set(`operations[${i}][from_user_id]`, String(from.id));
      body.set(`operations[${i}][to_user_id]`, String(to.id));
      body.set(`operations[${i}][wallet_id]`, wallet);
      body.set(`operations[${i}][amount]`, "1");
      body.set(`operations[${i}][note]`, GROWS.repeat(noteChars));
    }
    return body;
  };
  // Notes as long as the body leaves room for: MAX_BODY_BYTES bounds what the batch repeats.
  const room = MAX_BODY_BYTES - form(0).toString().length;
  const body = form(Math.floor(room / (3 * MAX_OPERATIONS)));
  expect(body.toString().length).toBeGreaterThan(MAX_BODY_BYTES - 3 * MAX_OPERATIONS);
  const res = await call("POST", "/batches", { auth: admin.bearer, body });
  expect(res.status, res.text).toBe(200);
  const row = await env.DB.prepare(
    "SELECT length(CAST(data AS BLOB)) AS bytes FROM events WHERE type = 'batch.completed' AND subject = ?",
  )
    .bind(String(res.body.data.batch_id))
    .first<{ bytes: number }>();
  // About 650,000 bytes: 200 entries of some 3,250 (a request_id of 1,146 bytes, a title of 620, a
  // note of 848). A site without SITE_URL also stores each entry's guid, its origin and slug: at
  // most about 500 bytes more an entry, 100,000 in all. A third of the limit, either way.
  expect(row!.bytes).toBeLessThan(D1_ROW_MAX_BYTES);
  // As docs/scaling.md gives it (ids and dates move it by a few thousand bytes).
  expect(Math.abs(row!.bytes - 650_000)).toBeLessThan(20_000);
  expect(scalingMd.replace(/\s+/g, " ")).toContain(
    "in one row: about 650,000 bytes for 100 transfers",
  );
});

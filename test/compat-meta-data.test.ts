// `meta_data` in the Rimplenet dialect: the object a client sends with a credit or debit is kept
// with the entry, exactly, and found again by the plugin's meta query (GET transactions?meta_key=),
// as the plugin kept each of its keys as post meta.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  credit,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
let admin: TestUser;
let user: TestUser;
let wallet: string;

const post = (path: string, body: Json) =>
  compatCall("POST", `${NS}${path}`, {
    vars: GUARDED,
    headers: { "Content-Type": "application/json", Authorization: admin.bearer },
    body: JSON.stringify(body),
  });
const key = () => unique("m");
/** A credit of 1 to the user, with `meta_data` as sent (undefined: none). */
const creditWithMeta = (meta_data?: unknown) =>
  post("/credits", {
    request_id: key(),
    user_id: user.id,
    amount: 1,
    wallet_id: wallet,
    meta_data,
  });
const storedMeta = async (id: number) =>
  (await env.DB.prepare("SELECT meta_data FROM transactions WHERE id = ?")
    .bind(id)
    .first<{ meta_data: string | null }>())!.meta_data;

beforeAll(async () => {
  admin = await makeAdmin();
  user = await makeUser();
  wallet = await makeWallet(admin);
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "500.00" });
});

describe("meta_data kept with the entry", () => {
  // NellalinkHQ/middleware-samzugagpt-general routes/custom/debit-user.js:82
  const META = {
    alt_request_id: "community_membership_registration_from_user_7",
    transaction_action_type: "community_membership_registration_debit",
    transaction_type_category: "community_membership_registration",
    transaction_external_processor: "middleware1",
    transaction_approval_status: "user_middleware_processed",
    transaction_approval_method: "middleware",
    nested: { list: [1, "two", { three: 3.5 }], unicode: "Ọkọnkwọ ₦" },
  };

  it("stores the object exactly as sent (debit-user.js:82) and finds it by its keys", async () => {
    const res = await post("/debits", {
      request_id: key(),
      user_id: user.id,
      amount: 10,
      wallet_id: wallet,
      note: "Community Membership Registration",
      meta_data: META,
    });
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.transaction_id as number;
    expect(JSON.parse((await storedMeta(id))!)).toEqual(META);

    const found = await compatCall(
      "GET",
      `${NS}/transactions?meta_key=transaction_action_type&meta_value=MEMBERSHIP_registration`,
      { vars: GUARDED, headers: { Authorization: admin.bearer } },
    );
    expect(found.body.message).toBe("Transactions Retrieved");
    expect((found.body.data as Json[]).map((r) => r.ID)).toContain(id);
    const absent = await compatCall("GET", `${NS}/transactions?meta_key=no_such_key`, {
      vars: GUARDED,
      headers: { Authorization: admin.bearer },
    });
    expect(absent.body.message).toBe("No transaction found");
  });

  it("finds it by any key the plugin could have stored as post meta: spaces, dots, accents, 255 characters", async () => {
    const tag = unique("v");
    const keys = ["order id", "ref.no", "clé", "a#b", "k".repeat(255)];
    const res = await creditWithMeta(Object.fromEntries(keys.map((k) => [k, tag])));
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.transaction_id as number;
    for (const k of keys) {
      const found = await compatCall(
        "GET",
        `${NS}/transactions?meta_key=${encodeURIComponent(k)}&meta_value=${tag}`,
        { vars: GUARDED, headers: { Authorization: admin.bearer } },
      );
      expect(
        (found.body.data as Json[]).map((r) => r.ID),
        k.slice(0, 20),
      ).toEqual([id]);
    }
  });

  it("keeps no meta_data when none is sent, and lists as sent", async () => {
    const none = await creditWithMeta();
    expect(await storedMeta(none.body.data.transaction_id)).toBeNull();
    // An empty field, as a form sends one left blank, and null are none too.
    for (const empty of ["", null]) {
      const blank = await creditWithMeta(empty);
      expect(blank.status, blank.text).toBe(200);
      expect(await storedMeta(blank.body.data.transaction_id)).toBeNull();
    }
    const list = await creditWithMeta(["a", 1]);
    expect(await storedMeta(list.body.data.transaction_id)).toBe('["a",1]');
  });

  it("counts meta_data in characters: 2,100 emoji are 2,108 of its 4,096", async () => {
    const meta_data = { k: "😀".repeat(2100) };
    const res = await creditWithMeta(meta_data);
    expect(res.status, res.text).toBe(200);
    expect(await storedMeta(res.body.data.transaction_id)).toBe(JSON.stringify(meta_data));
  });

  it("refuses meta_data that is not an object, or too large, and writes nothing", async () => {
    const before = await tableCounts();
    for (const meta_data of ["text", 12, true, { big: "x".repeat(5000) }]) {
      const res = await creditWithMeta(meta_data);
      expect(res.status, JSON.stringify(meta_data).slice(0, 40)).toBe(400);
      expect(res.body.message).toBe("invalid input");
      expect(Object.keys(res.body.error)).toEqual(["meta_data"]);
    }
    expect(await tableCounts()).toEqual(before);
  });
});

// The plugin dialect's DELETE users/{user_id} never leaves the service without an administrator:
// of two, one may go (itself or the other); the last one stays, with everything it holds.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { UNUSABLE_MARK } from "../src/db/schema";
import { compatCall, GUARDED } from "./compat-helpers";
import { makeAdmin, tableCounts } from "./helpers";

const del = (userId: number, auth: string) =>
  compatCall("DELETE", `/wp-json/rimplenet/v1/users/${userId}`, {
    headers: { Authorization: auth },
    vars: GUARDED,
  });

describe("DELETE users/{user_id} and the last administrator", () => {
  it("deletes one of two administrators, refuses the last, and of two racing leaves one", async () => {
    const [first, second] = [await makeAdmin(), await makeAdmin()];
    expect((await del(second.id, first.bearer)).status).toBe(200);
    const before = await tableCounts();
    const last = await del(first.id, first.bearer);
    expect([last.status, last.body]).toStrictEqual([
      409,
      {
        status_code: 409,
        status: "failed",
        message: "Operation cannot be completed",
        data: [],
        error: [{ user_id: ["user is the last administrator: the service needs one to be run"] }],
      },
    ]);
    expect(await tableCounts()).toStrictEqual(before);

    // Two new administrators; the first goes, and they delete each other at once.
    const [a, b] = [await makeAdmin(), await makeAdmin()];
    expect((await del(first.id, a.bearer)).status).toBe(200);
    const raced = await Promise.all([del(b.id, a.bearer), del(a.id, b.bearer)]);
    // One wins; the other finds itself the last (409) or its token gone (the plugin's JWT routes
    // answer a token that does not verify 400 "Invalid signature").
    expect(raced.map((r) => r.status).sort()).toSatisfy(
      ([won, lost]: number[]) => won === 200 && (lost === 400 || lost === 409),
    );
    const selves = await Promise.all([del(a.id, a.bearer), del(b.id, b.bearer)]);
    expect(selves.map((r) => r.status).sort()).toEqual([400, 409]);
  });

  it("counts no administrator that cannot sign in (a network's spam user): the last that can stays", async () => {
    const [own, spam] = [await makeAdmin(), await makeAdmin()];
    // Every other administrator (this one's and the test above's) marked as such a user is.
    await env.DB.prepare(
      "UPDATE users SET password_hash = ?1 || password_hash WHERE role = 'administrator' AND id <> ?2",
    )
      .bind(UNUSABLE_MARK, own.id)
      .run();
    const before = await tableCounts();
    const itself = await del(own.id, own.bearer);
    expect([itself.status, itself.body.error]).toStrictEqual([
      409,
      [{ user_id: ["user is the last administrator: the service needs one to be run"] }],
    ]);
    expect(await tableCounts()).toStrictEqual(before);
    // The one that cannot sign in may go while one that can stays.
    expect((await del(spam.id, own.bearer)).status).toBe(200);
  });
});

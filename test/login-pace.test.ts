import { env } from "cloudflare:workers";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { type Pace, padToFloor, REFUSAL_FLOOR_MS } from "../src/auth/pace";
import { phpassCrypt, wordPressHashKind } from "../src/auth/wordpress-hashes";
import { createDb } from "../src/db/client";
import { UNUSABLE_MARK, users } from "../src/db/schema";
import { call, makeUser, PASSWORD, testApp, unique } from "./helpers";

// Constant-cost sign-in: every refusal after a password check asks for the
// same padding, REFUSAL_FLOOR_MS after the check began; the wall-clock figures come from
// `npm run test:reliability` (test/reliability/timing.test.ts). Here the wait is recorded, not slept.

async function importedUser(passwordHash: string) {
  const name = unique("wp");
  const [row] = await createDb(env.DB)
    .insert(users)
    .values({
      username: name,
      email: `${name}@example.test`,
      passwordHash,
      role: "subscriber",
      registeredAtMs: Date.now(),
    })
    .returning();
  return row!;
}

/** WordPress writes $2y$; bcryptjs writes $2b$ (the same algorithm). */
const wpBcrypt = (password: string, cost: number) =>
  bcrypt.hashSync(password, cost).replace(/^\$2b\$/, "$2y$");

function recordingApp() {
  const asked: { floorMs: number; sinceMs: number }[] = [];
  const pace: Pace = async (floorMs, sinceMs) => void asked.push({ floorMs, sinceMs });
  return { app: testApp({ pace }), asked };
}

let n = 0;
const signIn = (login: string, password: string, app: ReturnType<typeof testApp>) =>
  call("POST", "/users/login", {
    body: { user_email: login, user_password: password },
    headers: { "CF-Connecting-IP": `192.0.2.${++n}` },
    app,
  });

describe("POST /users/login refusals cost one floor", () => {
  it("an unknown user, a wrong native password, wrong bcrypt-10, bcrypt-12 and phpass passwords and a marked account all wait out the same floor", async () => {
    const password = "the real one";
    const native = await makeUser();
    const cases: [string, string][] = [
      ["unknown user", `${unique("nobody")}@example.test`],
      ["native PBKDF2", native.email],
      ["bcrypt cost 10", (await importedUser(wpBcrypt(password, 10))).email],
      ["bcrypt cost 12", (await importedUser(wpBcrypt(password, 12))).email],
      ["phpass", (await importedUser(phpassCrypt(password, "$P$BsaltSALT")!)).email],
    ];
    // A hash behind the unusable mark (a network's spam user) refuses its own password too.
    const marked = `${UNUSABLE_MARK}${phpassCrypt(password, "$P$BsaltSALT")!}`;
    const spam = (await importedUser(marked)).email;
    const attempts: [string, string, string][] = [
      ...cases.map(([kind, login]): [string, string, string] => [kind, login, "not the password"]),
      ["marked unusable, a wrong password", spam, "not the password"],
      ["marked unusable, the password behind the mark", spam, password],
    ];
    for (const [kind, login, tried] of attempts) {
      const { app, asked } = recordingApp();
      const before = Date.now();
      const res = await signIn(login, tried, app);
      expect(res.status, kind).toBe(400);
      expect(res.body.error, kind).toEqual(["Invalid Credential"]);
      expect(asked, kind).toHaveLength(1);
      expect(asked[0]!.floorMs, kind).toBe(REFUSAL_FLOOR_MS);
      expect(asked[0]!.sinceMs, kind).toBeGreaterThanOrEqual(before);
      expect(asked[0]!.sinceMs, kind).toBeLessThanOrEqual(Date.now());
    }
  });

  it("does not pad a successful sign-in, and still upgrades an imported hash on it", async () => {
    const password = "imported pässword";
    const user = await importedUser(wpBcrypt(password, 10));
    const { app, asked } = recordingApp();
    const res = await signIn(user.username, password, app);
    expect(res.status, res.text).toBe(200);
    expect(asked).toEqual([]);
    const { password_hash } = (await env.DB.prepare("SELECT password_hash FROM users WHERE id = ?")
      .bind(user.id)
      .first<{ password_hash: string }>())!;
    expect(password_hash).toMatch(/^pbkdf2_sha256\$/);
    expect(wordPressHashKind(password_hash)).toBeNull();
    const native = await makeUser();
    expect((await signIn(native.email, PASSWORD, app)).status).toBe(200);
    expect(asked).toEqual([]);
  });

  it("does not pad a validation error, which checks no password", async () => {
    const { app, asked } = recordingApp();
    expect((await signIn("", "x", app)).status).toBe(400);
    expect(asked).toEqual([]);
  });
});

describe("padToFloor", () => {
  it("waits until sinceMs + floorMs", async () => {
    const since = Date.now();
    await padToFloor(40, since);
    expect(Date.now() - since).toBeGreaterThanOrEqual(40);
  });

  it("does not wait once the floor has passed", async () => {
    const since = Date.now() - 10_000;
    const started = Date.now();
    await padToFloor(40, since);
    expect(Date.now() - started).toBeLessThan(40);
  });
});

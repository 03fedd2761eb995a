import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkLoginPassword, hashPassword } from "../src/auth/password";
import { phpassCrypt, verifyWordPressHash, wordPressHashKind } from "../src/auth/wordpress-hashes";
import { createDb } from "../src/db/client";
import { users } from "../src/db/schema";
import { call, unique } from "./helpers";
import { md5Hex, wordPressHashes } from "./wordpress-hash-oracle";

// The test vector of phpass itself (test.php of the phpass distribution): "test12345" with 2^11 rounds.
const PHPASS_VECTOR = "$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0";

describe("WordPress password hashes", () => {
  it("recognises each kind and nothing else", async () => {
    const hashes = await wordPressHashes("pw");
    for (const [kind, hash] of Object.entries(hashes)) expect(wordPressHashKind(hash)).toBe(kind);
    expect(wordPressHashKind(PHPASS_VECTOR)).toBe("phpass");
    expect(wordPressHashKind(await hashPassword("pw"))).toBeNull();
    for (const other of [
      "",
      "*",
      "$H$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0",
      "$argon2id$v=19$m=65536,t=4,p=1$abc$def",
      "0123456789abcdef0123456789abcde",
    ]) {
      expect(wordPressHashKind(other)).toBeNull();
    }
  });

  it("recognises only the work factors a sign-in will spend: bcrypt cost 4-12, phpass 2^7-2^15 rounds", () => {
    const tail = "p5z68FdLSnapsNnz5Ik2zuMUjFwcV4ndoqoJDYD6NMKhKk/cDLBy.";
    for (const cost of ["04", "10", "12"]) {
      expect(wordPressHashKind(`$2y$${cost}$${tail}`)).toBe("bcrypt");
      expect(wordPressHashKind(`$wp$2y$${cost}$${tail}`)).toBe("wp-bcrypt");
    }
    for (const cost of ["03", "13", "31", "99"]) {
      expect(wordPressHashKind(`$2y$${cost}$${tail}`)).toBeNull();
      expect(wordPressHashKind(`$wp$2y$${cost}$${tail}`)).toBeNull();
    }
    for (const rounds of ["5", "B", "D"])
      expect(wordPressHashKind(`$P$${rounds}IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0`)).toBe("phpass");
    for (const rounds of ["4", "E", "F", "z"])
      expect(wordPressHashKind(`$P$${rounds}IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0`)).toBeNull();
    expect(phpassCrypt("x", "$P$Eabcdefgh")).toBeNull();
  });

  it("reproduces phpass's own test vector", async () => {
    expect(phpassCrypt("test12345", PHPASS_VECTOR)).toBe(PHPASS_VECTOR);
    expect(await verifyWordPressHash("test12345", PHPASS_VECTOR)).toBe(true);
    expect(await verifyWordPressHash("test12346", PHPASS_VECTOR)).toBe(false);
    expect(phpassCrypt("x", "$P$4abcdefgh")).toBeNull(); // fewer than 2^7 rounds: refused, as phpass does
  });

  it("verifies every kind for the right password only, including non-ASCII and quotes", async () => {
    for (const password of ["correct horse", 'pässwörd ₦ "q" it\'s', "x".repeat(100)]) {
      for (const [kind, hash] of Object.entries(await wordPressHashes(password))) {
        expect(await verifyWordPressHash(password, hash), `${kind} accepts its password`).toBe(
          true,
        );
        // (changed at the start: plain bcrypt, like PHP's, reads only the first 72 bytes)
        expect(await verifyWordPressHash(`!${password}`, hash), `${kind} refuses another`).toBe(
          false,
        );
      }
    }
  });

  it("pre-hashes WordPress 6.8 bcrypt: passwords past bcrypt's 72 bytes still count in full", async () => {
    const long = "a".repeat(80);
    const hash = (await wordPressHashes(long))["wp-bcrypt"];
    expect(await verifyWordPressHash(long, hash)).toBe(true);
    expect(await verifyWordPressHash(`${"a".repeat(79)}b`, hash)).toBe(false);
  });

  it("accepts upper-case hex for MD5 and refuses passwords over 4096 bytes for the slow kinds", async () => {
    expect(await verifyWordPressHash("legacy", (await md5Hex("legacy")).toUpperCase())).toBe(true);
    const huge = "p".repeat(4097);
    const hashes = await wordPressHashes(huge);
    for (const kind of ["phpass", "wp-bcrypt", "bcrypt"] as const)
      expect(await verifyWordPressHash(huge, hashes[kind])).toBe(false);
  });

  it("checkLoginPassword upgrades a good WordPress hash and leaves a wrong one alone", async () => {
    const hashes = await wordPressHashes("sesame");
    for (const hash of Object.values(hashes)) {
      const good = await checkLoginPassword("sesame", hash);
      expect(good.valid).toBe(true);
      expect(good.upgradedHash).toMatch(/^pbkdf2_sha256\$100000\$/);
      expect(await checkLoginPassword("sesame", good.upgradedHash)).toEqual({ valid: true });
      expect(await checkLoginPassword("wrong", hash)).toEqual({ valid: false });
    }
    expect(await checkLoginPassword("sesame", undefined)).toEqual({ valid: false });
  });

  it("checkLoginPassword takes a Django pbkdf2_sha256's salt as text, and upgrades it", async () => {
    // Digests by Python's hashlib.pbkdf2_hmac, as Django makes them; each salt also reads as base64
    // (of 5, 9 and 16 bytes), which is not what Django derived with.
    const django: [password: string, hash: string][] = [
      ["lètmein", "pbkdf2_sha256$36000$seasalt$mEUPPFJkT/xtwDU8rB7Q+puHRZnR07WRjerTkt/3HI0="],
      ["sesame", "pbkdf2_sha256$10000$Zm9vYmFyYmF6$xoUSZp2J4RHTgde6WchWmwZClIUH0G15GLRtnTQE1pQ="],
      [
        "sesame",
        "pbkdf2_sha256$100000$abcdefghijklmnopqrstuv$1WyyX3M6P3BntR3SPaufnMSKzYwXThg6WVIvpqNivX0=",
      ],
    ];
    for (const [password, hash] of django) {
      const good = await checkLoginPassword(password, hash);
      expect(good.valid, hash).toBe(true);
      expect(good.upgradedHash).toMatch(/^pbkdf2_sha256\$100000\$[A-Za-z0-9+/]{22}==\$/);
      expect(await checkLoginPassword(password, good.upgradedHash)).toEqual({ valid: true });
      expect(await checkLoginPassword(`${password}!`, hash)).toEqual({ valid: false });
    }
    // This service's own hash, at whatever count, is kept as it is.
    const own = await hashPassword("sesame", 1_000);
    expect(await checkLoginPassword("sesame", own)).toEqual({ valid: true });
  });
});

describe("POST /users/login with a hash imported from WordPress", () => {
  async function wordPressUser(passwordHash: string) {
    const name = unique("wpuser");
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
  const storedHash = async (id: number) =>
    (await env.DB.prepare("SELECT password_hash FROM users WHERE id = ?")
      .bind(id)
      .first<{ password_hash: string }>())!.password_hash;

  it("refuses, quickly and in the usual words, a hash whose work factor is out of bounds", async () => {
    for (const hash of [
      "$2y$31$p5z68FdLSnapsNnz5Ik2zuMUjFwcV4ndoqoJDYD6NMKhKk/cDLBy.",
      "$P$zIQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0",
    ]) {
      const user = await wordPressUser(hash);
      const res = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: "anything" },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(["Invalid Credential"]);
      expect(await storedHash(user.id)).toBe(hash);
    }
  });

  it("refuses in the usual words, never a fault, a pbkdf2_sha256 hash it cannot check", async () => {
    const real = (await hashPassword("anything", 1_000)).split("$");
    for (const hash of [
      // Django's format and count (a site that came from one): past the runtime's 100,000.
      "pbkdf2_sha256$260000$c2FsdHNhbHRzYWx0$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      `pbkdf2_sha256$0$${real[2]}$${real[3]}`,
      `pbkdf2_sha256$many$${real[2]}$${real[3]}`,
      // Django 2.1's count over a text salt.
      "pbkdf2_sha256$120000$seasalt$mEUPPFJkT/xtwDU8rB7Q+puHRZnR07WRjerTkt/3HI0=",
      `pbkdf2_sha256$1000$$${real[3]}`,
      `pbkdf2_sha256$1000$${real[2]}$${real[3]!.slice(0, 20)}`,
    ]) {
      const user = await wordPressUser(hash);
      const res = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: "anything" },
      });
      expect([res.status, res.body.error], hash).toEqual([400, ["Invalid Credential"]]);
      expect(await storedHash(user.id)).toBe(hash);
    }
  });

  for (const kind of ["phpass", "wp-bcrypt", "bcrypt", "md5"] as const) {
    it(`signs in with a ${kind} hash, then holds the service's own hash`, async () => {
      const password = `${kind} pässword`;
      const user = await wordPressUser((await wordPressHashes(password))[kind]);
      const wrong = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: "not it" },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toEqual(["Invalid Credential"]);
      expect(wordPressHashKind(await storedHash(user.id))).toBe(kind);

      const res = await call("POST", "/users/login", {
        body: { user_email: user.username, user_password: password },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({ user_id: user.id, username: user.username });
      const upgraded = await storedHash(user.id);
      expect(upgraded).toMatch(/^pbkdf2_sha256\$/);

      const again = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: password },
      });
      expect(again.status).toBe(200);
      expect(await storedHash(user.id)).toBe(upgraded);
    });
  }
});

// The edges of signing in with a password imported from WordPress, beyond wordpress-hashes.test.ts,
// imported-passwords-surfaces.test.ts and login-pace.test.ts: NUL bytes, white space at the ends
// (wallet/v1 takes the password as sent, the plugin's dialect PHP-trims it as wp_authenticate did),
// bcrypt's 72 bytes, odd stored hashes, the 4096-byte bound, empty passwords, and the upgrade to the
// service's own hash.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkLoginPassword } from "../src/auth/password";
import { verifyWordPressHash, wordPressHashKind } from "../src/auth/wordpress-hashes";
import { GUARDED } from "./compat-helpers";
import { call, makeUser, type Reply, unique } from "./helpers";
import { md5Hex, wordPressHashes } from "./wordpress-hash-oracle";

const KINDS = ["phpass", "wp-bcrypt", "bcrypt", "md5"] as const;
type Kind = (typeof KINDS)[number];
const OWN_HASH = /^pbkdf2_sha256\$100000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/;

const hashOf = async (id: number) =>
  (await env.DB.prepare("SELECT password_hash AS h FROM users WHERE id = ?")
    .bind(id)
    .first<{ h: string }>())!.h;

let ip = 0;
/** A sign-in on wallet/v1 or on the plugin's dialect, each from an address of its own. */
async function login(dialect: "v1" | "plugin", login: string, password: string) {
  const n = ++ip;
  const headers = { "CF-Connecting-IP": `198.51.${(n >> 8) & 255}.${n & 255}` };
  const body = { user_email: login, user_password: password };
  const res: Reply =
    dialect === "v1"
      ? await call("POST", "/users/login", { body, headers })
      : await call("POST", "/wp-json/rimplenet/v1/users/login/", { body, headers, vars: GUARDED });
  return { res };
}
const REFUSED = [400, ["Invalid Credential"]];
const answer = ({ res }: { res: Reply }) =>
  res.status === 200 ? [200, res.body.data?.user_id !== undefined] : [res.status, res.body.error];

/** A user holding the WordPress hash of `password` in `kind`. */
async function holder(kind: Kind, password: string) {
  const hash = (await wordPressHashes(password))[kind];
  const user = await makeUser("subscriber", unique("imported"), hash);
  return { user, hash };
}

describe("verifyWordPressHash: bytes WordPress counts", () => {
  it("a NUL inside the password counts, for every kind (PHP's crypt would stop at it for $2y$)", async () => {
    for (const [kind, hash] of Object.entries(await wordPressHashes("pw"))) {
      for (const sent of ["pw\0", "pw\0junk", "\0pw", "p\0w"])
        expect(await verifyWordPressHash(sent, hash), `${kind} ${JSON.stringify(sent)}`).toBe(
          false,
        );
    }
    for (const [kind, hash] of Object.entries(await wordPressHashes("pw\0junk"))) {
      expect(await verifyWordPressHash("pw\0junk", hash), kind).toBe(true);
      expect(await verifyWordPressHash("pw", hash), kind).toBe(false);
      expect(await verifyWordPressHash("pw\0other", hash), kind).toBe(false);
    }
  });

  it("$wp$2y$ counts bytes past 72, multi-byte ones too; plain $2y$ reads 72, as PHP does", async () => {
    const head = "é".repeat(36); // 72 bytes
    const hashes = await wordPressHashes(`${head}tail`);
    expect(await verifyWordPressHash(`${head}tail`, hashes["wp-bcrypt"])).toBe(true);
    expect(await verifyWordPressHash(`${head}TAIL`, hashes["wp-bcrypt"])).toBe(false);
    expect(await verifyWordPressHash(head, hashes["wp-bcrypt"])).toBe(false);
    expect(await verifyWordPressHash(`${head}TAIL`, hashes.phpass)).toBe(false);
    expect(await verifyWordPressHash(`${head}TAIL`, hashes.md5)).toBe(false);
    // PHP's password_verify reads 72 bytes of a plain bcrypt too: WordPress signs this one in.
    expect(await verifyWordPressHash(`${head}TAIL`, hashes.bcrypt)).toBe(true);
  });

  it("white space and lookalikes at the ends are part of the password here (the route trims)", async () => {
    for (const [kind, hash] of Object.entries(await wordPressHashes("pw"))) {
      for (const sent of [" pw", "pw ", "\tpw", "pw\n", "pw\u00a0", "\u00a0pw", "pw\u3000", "PW"])
        expect(await verifyWordPressHash(sent, hash), `${kind} ${JSON.stringify(sent)}`).toBe(
          false,
        );
    }
  });

  it("a stored MD5 must be exactly 32 hex digits; case is ignored (WordPress's hash_equals is not)", async () => {
    const md5 = await md5Hex("pw");
    for (const odd of [
      md5.slice(1),
      `${md5}0`,
      `${md5}\n`,
      ` ${md5}`,
      `${md5}\0`,
      `${md5.slice(0, 16)}\0${md5.slice(17)}`,
      md5.replace(/[a-f]/, "g"),
    ]) {
      expect(wordPressHashKind(odd), JSON.stringify(odd)).toBeNull();
      expect(await verifyWordPressHash("pw", odd), JSON.stringify(odd)).toBe(false);
      expect((await checkLoginPassword("pw", odd)).valid, JSON.stringify(odd)).toBe(false);
    }
    // Deliberate (wordpress-hashes.test.ts): upper-case and mixed-case hex accept the password.
    expect(await verifyWordPressHash("pw", md5.toUpperCase())).toBe(true);
    expect(await verifyWordPressHash("px", md5.toUpperCase())).toBe(false);
  });

  it("a stored hash of 10 KB, or a good one with more after it, is no kind and is refused", async () => {
    const good = await wordPressHashes("pw");
    for (const hash of [
      "a".repeat(10_240),
      "$".repeat(10_240),
      `$P$B${"a".repeat(10_240)}`,
      `$wp$2y$10$${"a".repeat(10_240)}`,
      ...Object.values(good).flatMap((h) => [`${h}${"x".repeat(10_240)}`, `${h}\0`, `${h}\n`]),
    ]) {
      expect(wordPressHashKind(hash), hash.slice(0, 40)).toBeNull();
      expect(await checkLoginPassword("pw", hash), hash.slice(0, 40)).toEqual({ valid: false });
    }
  });
});

describe("POST users/login with an imported hash: the ends of the password", () => {
  // wallet/v1 takes the password exactly as sent (docs/compat.md); WordPress's hash is of the
  // trimmed text, so a blank at the ends is a wrong password there.
  it.each(KINDS)(
    "wallet/v1 refuses %s's password with anything around or inside it",
    async (kind) => {
      const { user, hash } = await holder(kind, "sesame");
      for (const sent of [" sesame", "sesame\t", "sesame\0", "sesame\u00a0", "ses\0ame"]) {
        const tried = await login("v1", user.email, sent);
        expect(answer(tried), JSON.stringify(sent)).toEqual(REFUSED);
      }
      expect(await hashOf(user.id)).toBe(hash);
    },
  );

  // The plugin's dialect trims as PHP's trim() does: " \t\n\r\0\x0B" and nothing else.
  it.each(KINDS)(
    "the plugin's dialect signs %s in through PHP's trim, and not through a no-break space",
    async (kind) => {
      for (const sent of [" sesame ", "\tsesame\n", "\0sesame\r\x0B"]) {
        const { user } = await holder(kind, "sesame");
        const tried = await login("plugin", user.username, sent);
        expect(answer(tried), JSON.stringify(sent)).toEqual([200, true]);
        expect(await hashOf(user.id)).toMatch(OWN_HASH);
        // The hash written is of the trimmed password: exact on wallet/v1 afterwards.
        expect(answer(await login("v1", user.email, "sesame"))).toEqual([200, true]);
        expect(answer(await login("v1", user.email, sent))).toEqual(REFUSED);
      }
      const { user, hash } = await holder(kind, "sesame");
      for (const sent of [
        "sesame\u00a0",
        "\u00a0sesame",
        "sesame\u3000",
        "\u2028sesame",
        "ses\0ame",
        "sesame\f",
      ]) {
        const tried = await login("plugin", user.username, sent);
        expect(answer(tried), JSON.stringify(sent)).toEqual(REFUSED);
      }
      expect(await hashOf(user.id)).toBe(hash);
    },
  );
});

describe("POST users/login with an imported hash: sizes", () => {
  it.each(KINDS)(
    "%s: 4096 bytes sign in, 4097 only where WordPress has no bound (MD5); never a fault",
    async (kind) => {
      const at = "p".repeat(4096);
      const past = `${at}q`;
      for (const dialect of ["v1", "plugin"] as const) {
        for (const [password, ok] of [
          [at, true],
          [past, kind === "md5"],
        ] as const) {
          const { user, hash } = await holder(kind, password);
          const wrong = await login(dialect, user.email, `x${password.slice(1)}`); // within 72 bytes
          expect(answer(wrong), `${dialect} wrong`).toEqual(REFUSED);
          const tried = await login(dialect, user.email, password);
          expect(answer(tried), `${dialect} ${password.length}`).toEqual(
            ok ? [200, true] : REFUSED,
          );
          if (ok) expect(await hashOf(user.id)).toMatch(OWN_HASH);
          else expect(await hashOf(user.id)).toBe(hash);
        }
      }
    },
  );

  it("4096 multi-byte bytes are the bound, not 4096 characters", async () => {
    const at = "é".repeat(2048); // 4096 bytes
    const past = "é".repeat(2049); // 4098 bytes, 2049 characters
    for (const kind of ["phpass", "bcrypt", "wp-bcrypt"] as const) {
      expect(await verifyWordPressHash(at, (await wordPressHashes(at))[kind]), kind).toBe(true);
      expect(await verifyWordPressHash(past, (await wordPressHashes(past))[kind]), kind).toBe(
        false,
      );
    }
  });

  it("stored hashes of 10 KB or holding a NUL refuse on both dialects, unchanged, never a fault", async () => {
    const good = await wordPressHashes("sesame");
    for (const hash of [
      "a".repeat(10_240),
      `${good.bcrypt}${"x".repeat(10_240)}`,
      `${good.phpass}\0`,
      `${good.md5.slice(0, 10)}\0${good.md5.slice(11)}`,
      `\0${good["wp-bcrypt"]}`,
    ]) {
      const user = await makeUser("subscriber", unique("imported"), hash);
      for (const dialect of ["v1", "plugin"] as const) {
        const tried = await login(dialect, user.email, "sesame");
        expect(answer(tried), `${dialect} ${JSON.stringify(hash.slice(0, 40))}`).toEqual(REFUSED);
      }
      expect(await hashOf(user.id)).toBe(hash);
    }
  });
});

describe("POST users/login: the upgrade after an imported sign-in", () => {
  it.each(KINDS)(
    "%s: replaced by the service's own; the old password works, a wrong one and the hash's old leniencies do not",
    async (kind) => {
      const long = `${"x".repeat(72)}tail`;
      const { user, hash } = await holder(kind, long);
      expect(answer(await login("v1", user.email, `!${long}`))).toEqual(REFUSED);
      expect(await hashOf(user.id)).toBe(hash);
      expect(answer(await login("v1", user.username, long))).toEqual([200, true]);
      const upgraded = await hashOf(user.id);
      expect(upgraded).toMatch(OWN_HASH);
      expect(wordPressHashKind(upgraded)).toBeNull();
      expect(answer(await login("v1", user.email, long))).toEqual([200, true]);
      expect(answer(await login("plugin", user.email, ` ${long} `))).toEqual([200, true]);
      // Plain bcrypt read 72 bytes; the service's own hash reads them all.
      expect(answer(await login("v1", user.email, `${"x".repeat(72)}TAIL`))).toEqual(REFUSED);
      expect(answer(await login("v1", user.email, "wrong"))).toEqual(REFUSED);
      if (kind === "md5")
        expect(answer(await login("v1", user.email, await md5Hex(long)))).toEqual(REFUSED);
      expect(await hashOf(user.id)).toBe(upgraded);
    },
  );

  it("plain $2y$: a first sign-in with the 72-byte head and other bytes after it is what WordPress allows, and the stored hash is then of that text", async () => {
    const long = `${"x".repeat(72)}tail`;
    const { user } = await holder("bcrypt", long);
    expect(answer(await login("v1", user.email, `${"x".repeat(72)}OTHER`))).toEqual([200, true]);
    // WordPress 6.8 rehashes with the password as typed too (wp_check_password → wp_set_password).
    expect(answer(await login("v1", user.email, long))).toEqual(REFUSED);
    expect(answer(await login("v1", user.email, `${"x".repeat(72)}OTHER`))).toEqual([200, true]);
  });
});

describe("POST users/login with an imported hash: odd texts", () => {
  it("a lone surrogate in JSON is refused as invalid JSON, as WordPress's json_decode refused it", async () => {
    for (const kind of KINDS) {
      const { user, hash } = await holder(kind, "pw\ufffd");
      const tried = await login("v1", user.email, "pw\ud800");
      expect([tried.res.status, tried.res.body.code], kind).toEqual([400, "rest_invalid_json"]);
      expect(await hashOf(user.id)).toBe(hash);
    }
  });

  it("a form body's bytes that are no UTF-8 are refused whole, never read as U+FFFD", async () => {
    for (const kind of KINDS) {
      const { user, hash } = await holder(kind, "pw\ufffd");
      const res = await call("POST", "/users/login", {
        body: `user_email=${encodeURIComponent(user.email)}&user_password=pw%FF`,
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "CF-Connecting-IP": `203.0.113.${++ip & 255}`,
        },
      });
      expect([res.status, res.body.error], kind).toEqual([
        400,
        [{ body: ["body is not valid UTF-8"] }],
      ]);
      expect(await hashOf(user.id)).toBe(hash);
    }
  });

  it("a password sent as a number, an array or an object is its text or a validation error, never a fault", async () => {
    const { user, hash } = await holder("md5", "12345");
    for (const sent of [[12345], { a: "12345" }, null]) {
      const res = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: sent },
        headers: { "CF-Connecting-IP": `203.0.113.${++ip & 255}` },
      });
      expect(res.status, JSON.stringify(sent)).toBe(400);
    }
    expect(await hashOf(user.id)).toBe(hash);
  });
});

describe("POST users/login with an imported hash of an empty password", () => {
  // wp_authenticate_username_password refused an empty password after the trim (PHP's empty()).
  it.each(KINDS)(
    '%s of "": blanks on the plugin\'s dialect, and nothing on wallet/v1, do not sign in',
    async (kind) => {
      const { user, hash } = await holder(kind, "");
      for (const sent of [" ", "\t\n", "\0"]) {
        const tried = await login("plugin", user.email, sent);
        expect(answer(tried), `${kind} ${JSON.stringify(sent)}`).toEqual(REFUSED);
      }
      const empty = await login("v1", user.email, "");
      expect(empty.res.status).toBe(400);
      expect(empty.res.body.error).toEqual([{ user_pass: ["user_password is required"] }]);
      expect(await hashOf(user.id)).toBe(hash);
    },
  );
});

describe('POST users/login with an imported hash of "0"', () => {
  // PHP's empty("0") is true: wp_authenticate_username_password refused "0" as it refused "".
  it.each(KINDS)('%s of "0": the plugin\'s dialect refuses it, as WordPress did', async (kind) => {
    const { user, hash } = await holder(kind, "0");
    expect(answer(await login("plugin", user.email, " 0 "))).toEqual(REFUSED);
    expect(answer(await login("plugin", user.email, "0"))).toEqual(REFUSED);
    expect(await hashOf(user.id)).toBe(hash);
  });
});

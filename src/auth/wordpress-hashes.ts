// Password hashes carried over from a WordPress site (scripts/import-wordpress.ts copies user_pass
// as it is), checked the way WordPress 6.8's wp_check_password does, so imported users keep their
// passwords. After one successful sign-in the hash is replaced by this service's own (password.ts).
//
// WebCrypto has no MD5 and no bcrypt: MD5 comes from node:crypto (the Worker runs with
// nodejs_compat), bcrypt from bcryptjs (plain JavaScript); HMAC-SHA384 is WebCrypto's.
import { createHash } from "node:crypto";
import bcrypt from "bcryptjs";
import { toBase64 } from "./base64";
import { sameSecret } from "./same-secret";

type WordPressHashKind = "phpass" | "wp-bcrypt" | "bcrypt" | "md5";

// wp_check_password refuses passwords longer than this many bytes (phpass and bcrypt paths).
const MAX_PASSWORD_BYTES = 4096;
const utf8 = new TextEncoder();
const tooLong = (password: string) => utf8.encode(password).length > MAX_PASSWORD_BYTES;
const ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Work factors a sign-in will spend: bcrypt cost 4-12 (WordPress writes 10, or 12 on PHP 8.4;
// bcryptjs takes ~330 ms at 12 and doubles per step) and phpass 2^7-2^15 MD5 rounds (WordPress
// writes $P$B, 2^13; 2^15 over a 4096-byte password takes no longer than bcrypt 12). A hash asking
// for more is not verified, so it cannot pin a Worker's CPU or outlast the refusal floor (pace.ts).
const BCRYPT = "\\$2[aby]\\$(?:0[4-9]|1[0-2])\\$[./A-Za-z0-9]{53}";
const HASH_KINDS: [WordPressHashKind, RegExp][] = [
  ["md5", /^[0-9a-f]{32}$/i],
  ["wp-bcrypt", new RegExp(`^\\$wp${BCRYPT}$`)],
  ["phpass", /^\$P\$[5-9A-D][./A-Za-z0-9]{30}$/],
  ["bcrypt", new RegExp(`^${BCRYPT}$`)],
];

/**
 * Which WordPress hash this is, or null for anything else: this service's own hashes, and WordPress
 * hashes whose work factor is outside the bounds above (their users reset their passwords).
 */
export function wordPressHashKind(hash: string): WordPressHashKind | null {
  return HASH_KINDS.find(([, pattern]) => pattern.test(hash))?.[0] ?? null;
}

/** phpass's own base64 of the MD5 digest (encode64 in class-phpass.php). */
export function encode64(input: Uint8Array, count: number) {
  let output = "";
  let i = 0;
  do {
    let value = input[i++]!;
    output += ITOA64[value & 0x3f];
    if (i < count) value |= input[i]! << 8;
    output += ITOA64[(value >> 6) & 0x3f];
    if (i++ >= count) break;
    if (i < count) value |= input[i]! << 16;
    output += ITOA64[(value >> 12) & 0x3f];
    if (i++ >= count) break;
    output += ITOA64[(value >> 18) & 0x3f];
  } while (i < count);
  return output;
}

/**
 * phpass "portable" hashing (PasswordHash::crypt_private): 2^n rounds of MD5 over the previous digest
 * and the password, n from the fourth character (WordPress writes `$P$B`: 2^13 = 8192 rounds).
 * Returns null for a malformed setting.
 */
export function phpassCrypt(password: string, setting: string): string | null {
  if (setting.slice(0, 3) !== "$P$") return null;
  const countLog2 = ITOA64.indexOf(setting[3] ?? "");
  if (countLog2 < 7 || countLog2 > 15) return null;
  const salt = setting.slice(4, 12);
  if (salt.length !== 8) return null;
  const secret = utf8.encode(password);
  let digest = createHash("md5").update(salt, "latin1").update(secret).digest();
  for (let count = 1 << countLog2; count > 0; count--)
    digest = createHash("md5").update(digest).update(secret).digest();
  return setting.slice(0, 12) + encode64(digest, 16);
}

/** base64(HMAC-SHA384(password, key "wp-sha384")): WordPress 6.8's bcrypt pre-hash. */
export async function wpPrehash(password: string) {
  const key = await crypto.subtle.importKey(
    "raw",
    utf8.encode("wp-sha384"),
    { name: "HMAC", hash: "SHA-384" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8.encode(password)));
  return toBase64(mac);
}

// bcryptjs knows $2y$ as well, but $2b$ is the same algorithm and its canonical name.
const bcryptCompare = (password: string, hash: string) =>
  bcrypt.compare(password, hash.replace(/^\$2y\$/, "$2b$"));

/** wp_check_password for the hash kinds WordPress sites hold; false for a wrong password. */
export async function verifyWordPressHash(password: string, hash: string): Promise<boolean> {
  switch (wordPressHashKind(hash)) {
    case "md5":
      // WordPress compares any hash of 32 characters or fewer with a plain MD5 of the password.
      return sameSecret(
        hash.toLowerCase(),
        createHash("md5").update(password, "utf8").digest("hex"),
      );
    case "wp-bcrypt": {
      if (tooLong(password)) return false;
      // WordPress 6.8+: bcrypt over base64(HMAC-SHA384(password, key "wp-sha384")), stored with "$wp".
      return bcryptCompare(await wpPrehash(password), hash.slice(3));
    }
    case "phpass": {
      if (tooLong(password)) return false;
      const computed = phpassCrypt(password, hash);
      return computed !== null && sameSecret(computed, hash);
    }
    case "bcrypt":
      if (tooLong(password)) return false;
      return bcryptCompare(password, hash);
    default:
      return false;
  }
}

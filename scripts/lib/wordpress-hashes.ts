// Password hashes made the way WordPress makes them, for test data (the fixture dumps, the
// reliability suite's imported users), with the service's own phpass and pre-hash code
// (src/auth/wordpress-hashes.ts), which verifies them. Each writer takes an optional salt label: the
// salt is then derived from it, so a fixture written twice is the same file; without one the salt is
// random.
import { createHash, randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import { encode64, phpassCrypt, wpPrehash } from "../../src/auth/wordpress-hashes";

const saltBytes = (label: string | undefined, n: number) =>
  label === undefined
    ? randomBytes(n)
    : createHash("sha256").update(`fixture-salt:${label}`).digest().subarray(0, n);

/** PasswordHash(8, true)->HashPassword, as WordPress before 6.8 wrote it: `$P$B`, 2^13 MD5 rounds. */
export const phpass = (password: string, label?: string) =>
  phpassCrypt(password, `$P$B${encode64(saltBytes(label, 6), 6)}`)!;

/** PHP's password_hash (bcrypt), which writes `$2y$`. */
export const phpBcrypt = (password: string, cost: number, label?: string) =>
  bcrypt
    .hashSync(
      password,
      `$2b$${String(cost).padStart(2, "0")}$${bcrypt.encodeBase64(saltBytes(label, 16), 16)}`,
    )
    .replace(/^\$2[ab]\$/, "$2y$");

/** WordPress 6.8 wp_hash_password: bcrypt of the HMAC-SHA384 of the trimmed password, prefixed `$wp`. */
export const wpBcrypt = async (password: string, label?: string) =>
  `$wp${phpBcrypt(await wpPrehash(password.trim()), 10, label)}`;

/** The plain MD5 of WordPress's oldest sites, which it still accepts (and rehashes on sign-in). */
export const md5 = (password: string) => createHash("md5").update(password).digest("hex");

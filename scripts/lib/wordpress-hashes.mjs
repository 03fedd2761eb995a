// Password hashes made the way WordPress makes them, for test data (the fixture dumps, the
// reliability suite's imported users). src/auth/wordpress-hashes.ts verifies the same formats.
// Each writer takes an optional salt label: the salt is then derived from it, so a fixture written
// twice is the same file; without one the salt is random.
import { createHash, createHmac, randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";

const ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const saltBytes = (label, n) =>
  label === undefined
    ? randomBytes(n)
    : createHash("sha256").update(`fixture-salt:${label}`).digest().subarray(0, n);

/** phpass's own base64 (encode64 in class-phpass.php). */
function encode64(input, count) {
  let output = "";
  let i = 0;
  do {
    let value = input[i++];
    output += ITOA64[value & 0x3f];
    if (i < count) value |= input[i] << 8;
    output += ITOA64[(value >> 6) & 0x3f];
    if (i++ >= count) break;
    if (i < count) value |= input[i] << 16;
    output += ITOA64[(value >> 12) & 0x3f];
    if (i++ >= count) break;
    output += ITOA64[(value >> 18) & 0x3f];
  } while (i < count);
  return output;
}

/** PasswordHash(8, true)->HashPassword, as WordPress before 6.8 wrote it: `$P$B`, 2^13 MD5 rounds. */
export function phpass(password, label) {
  const salt = encode64(saltBytes(label, 6), 6);
  const secret = Buffer.from(password, "utf8");
  let hash = createHash("md5").update(salt).update(secret).digest();
  for (let count = 1 << 13; count > 0; count--)
    hash = createHash("md5").update(hash).update(secret).digest();
  return `$P$B${salt}${encode64(hash, 16)}`;
}

/** PHP's password_hash (bcrypt), which writes `$2y$`. */
export const phpBcrypt = (password, cost, label) =>
  bcrypt
    .hashSync(
      password,
      `$2b$${String(cost).padStart(2, "0")}$${bcrypt.encodeBase64(saltBytes(label, 16), 16)}`,
    )
    .replace(/^\$2[ab]\$/, "$2y$");

/** WordPress 6.8 wp_hash_password: bcrypt of the HMAC-SHA384 of the password, prefixed `$wp`. */
export const wpBcrypt = (password, label) =>
  `$wp${phpBcrypt(createHmac("sha384", "wp-sha384").update(password.trim()).digest("base64"), 10, label)}`;

/** The plain MD5 of WordPress's oldest sites, which it still accepts (and rehashes on sign-in). */
export const md5 = (password) => createHash("md5").update(password).digest("hex");

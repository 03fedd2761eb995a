// Hashes of a password in each format WordPress sites hold, made the way WordPress and PHP make
// them (bcryptjs, node:crypto, phpass's own test vector checks phpassCrypt): the tests' oracle,
// apart from src/auth/wordpress-hashes.ts's checks of them. bcrypt at cost 4 keeps suites fast.
import bcrypt from "bcryptjs";
import { phpassCrypt } from "../src/auth/wordpress-hashes";

export async function md5Hex(text: string) {
  const { createHash } = await import("node:crypto");
  return createHash("md5").update(text, "utf8").digest("hex");
}

/** WordPress 6.8's bcrypt pre-hash: base64(HMAC-SHA384(password, key "wp-sha384")). */
async function wpPrehash(password: string) {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("wp-sha384"),
    { name: "HMAC", hash: "SHA-384" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(password)),
  );
  return btoa(String.fromCharCode(...mac));
}

/** PHP's password_hash writes bcrypt as $2y$. */
const to2y = (hash: string) => hash.replace(/^\$2[ab]\$/, "$2y$");

/** Hashes of `password` in each format (WordPress trims a password before its 6.8 pre-hash). */
export async function wordPressHashes(password: string) {
  return {
    phpass: phpassCrypt(password, "$P$BabcdefgH")!,
    "wp-bcrypt": `$wp${to2y(bcrypt.hashSync(await wpPrehash(password.trim()), 4))}`,
    bcrypt: to2y(bcrypt.hashSync(password, 4)),
    md5: await md5Hex(password),
  };
}

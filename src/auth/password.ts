import { fromBase64, toBase64 } from "./base64";
import { verifyWordPressHash, wordPressHashKind } from "./wordpress-hashes";

// PBKDF2-SHA256 through WebCrypto: slow, salted, and native on Workers (which cap it at 100,000
// iterations). Stored as `pbkdf2_sha256$<iterations>$<salt b64>$<hash b64>`; the tools
// (scripts/lib/admin.ts) call hashPassword too, under Node, whose WebCrypto has the same PBKDF2.
const ITERATIONS = 100_000;
const PASSWORD_HASH_PREFIX = "pbkdf2_sha256";
/** The bytes of a derived digest (deriveBits' 256 bits). */
const DIGEST_BYTES = 32;

async function derive(password: string, salt: Uint8Array, iterations: number) {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    key,
    DIGEST_BYTES * 8,
  );
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations = ITERATIONS) {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `${PASSWORD_HASH_PREFIX}$${iterations}$${toBase64(salt)}$${toBase64(await derive(password, salt, iterations))}`;
}

// Used for unknown users too, so a wrong username costs the same time as a wrong password.
const DUMMY_HASH = `${PASSWORD_HASH_PREFIX}$${ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

/**
 * A stored hash of this service's format that a sign-in can check, or undefined: at most the
 * runtime's 100,000 iterations (a count past it, such as Django's 260,000 in a user_pass a site
 * carried over, would fail the derivation), a base64 salt, and a base64 digest of the size derived
 * (one of another size matches no password). Its user resets the password.
 */
function parseHash(stored: string) {
  const [prefix, iterations = "", salt = "", hash = "", ...rest] = stored.split("$");
  if (prefix !== PASSWORD_HASH_PREFIX || rest.length > 0 || !/^[1-9][0-9]{0,5}$/.test(iterations))
    return undefined;
  if (Number(iterations) > ITERATIONS || salt === "") return undefined;
  try {
    const parsed = {
      iterations: Number(iterations),
      salt: fromBase64(salt),
      hash: fromBase64(hash),
    };
    return parsed.hash.length === DIGEST_BYTES ? parsed : undefined;
  } catch {
    return undefined; // not base64
  }
}

/**
 * Whether `stored` is a hash of this service's own that a sign-in can check. The importer counts a
 * user_pass as this service's by it, and keeps such a hash over the site's on a later run.
 */
export const checkableHash = (stored: string) => parseHash(stored) !== undefined;

const DUMMY = parseHash(DUMMY_HASH)!;

/** Whether `password` matches `stored`; a hash it cannot check costs a whole derivation too. */
async function verifyPassword(password: string, stored: string | undefined) {
  const parsed = stored === undefined ? undefined : parseHash(stored);
  const { iterations, salt, hash } = parsed ?? DUMMY;
  const actual = await derive(password, salt, iterations);
  return (
    parsed !== undefined &&
    actual.length === hash.length &&
    crypto.subtle.timingSafeEqual(actual, hash)
  );
}

type LoginCheck = { valid: boolean; upgradedHash?: string };

/**
 * A sign-in's password check. Besides this service's own hashes it accepts the hashes imported from
 * a WordPress site (wordpress-hashes.ts); a valid one comes back with `upgradedHash`, this service's
 * hash of the same password, to store in its place. An imported hash that does not match still runs
 * a full PBKDF2 derivation, so no sign-in costs less than an unknown user's.
 */
export async function checkLoginPassword(
  password: string,
  stored: string | undefined,
): Promise<LoginCheck> {
  if (stored === undefined || wordPressHashKind(stored) === null)
    return { valid: await verifyPassword(password, stored) };
  if (await verifyWordPressHash(password, stored))
    return { valid: true, upgradedHash: await hashPassword(password) };
  await verifyPassword(password, undefined);
  return { valid: false };
}

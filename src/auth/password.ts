import { fromBase64, toBase64 } from "./base64";
import { verifyWordPressHash, wordPressHashKind } from "./wordpress-hashes";

// PBKDF2-SHA256 through WebCrypto: slow, salted, and native on Workers (which cap it at 100,000
// iterations). Stored as `pbkdf2_sha256$<iterations>$<salt b64>$<hash b64>`; the tools
// (scripts/lib/admin.ts) call hashPassword too, under Node, whose WebCrypto has the same PBKDF2.
const ITERATIONS = 100_000;
const PASSWORD_HASH_PREFIX = "pbkdf2_sha256";
/** The bytes of a derived digest (deriveBits' 256 bits). */
const DIGEST_BYTES = 32;

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
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

/** How long a password a user may set, in characters (text.ts `chars`): 6 to 256. */
export const PASSWORD_LENGTH = { min: 6, max: 256 } as const;

export async function hashPassword(password: string, iterations = ITERATIONS) {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `${PASSWORD_HASH_PREFIX}$${iterations}$${toBase64(salt)}$${toBase64(await derive(password, salt, iterations))}`;
}

// Used for unknown users too, so a wrong username costs the same time as a wrong password.
const DUMMY_HASH = `${PASSWORD_HASH_PREFIX}$${ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

/** A salt as hashPassword writes it: 16 bytes in base64, 24 characters ending `==`. */
const OWN_SALT = /^[A-Za-z0-9+/]{21}[AQgw]==$/;
const utf8 = new TextEncoder();

/**
 * A stored `pbkdf2_sha256$…` a sign-in can check, or undefined: at most the runtime's 100,000
 * iterations (a count past it, such as Django's 260,000 in a user_pass a site carried over, would
 * fail the derivation), a salt, and a base64 digest of the size derived (one of another size
 * matches no password). Its user resets the password.
 *
 * The salt is this service's (`own`) when it reads as hashPassword writes it: those 16 bytes. Any
 * other salt is text whose UTF-8 bytes are the salt, as Django writes it ([a-zA-Z0-9], 12 or 22
 * characters, never `=`, and often valid base64 too): the site's hash, replaced at a good sign-in.
 */
function parseHash(stored: string) {
  const [prefix, iterations = "", salt = "", hash = "", ...rest] = stored.split("$");
  if (prefix !== PASSWORD_HASH_PREFIX || rest.length > 0 || !/^[1-9][0-9]{0,5}$/.test(iterations))
    return undefined;
  if (Number(iterations) > ITERATIONS || salt === "") return undefined;
  const own = OWN_SALT.test(salt);
  try {
    const parsed = {
      iterations: Number(iterations),
      // Copied into an ArrayBuffer of its own: WebCrypto's types take no shared memory.
      salt: own ? fromBase64(salt) : new Uint8Array(utf8.encode(salt)),
      hash: fromBase64(hash),
      own,
    };
    return parsed.hash.length === DIGEST_BYTES ? parsed : undefined;
  } catch {
    return undefined; // a digest that is no base64
  }
}

/**
 * Which `pbkdf2_sha256$…` a sign-in can check `stored` is: this service's own ("pbkdf2"), or one
 * with a text salt a site carried over from Django ("django"); undefined for any other. The
 * importer counts user_pass hashes by it, and keeps this service's own over the site's on a later
 * run.
 */
export const checkableHashKind = (stored: string) => {
  const parsed = parseHash(stored);
  if (parsed === undefined) return undefined;
  return parsed.own ? "pbkdf2" : "django";
};

const DUMMY = parseHash(DUMMY_HASH)!;

/** Whether `password` matches a parsed hash; none (one it cannot check) costs a derivation too. */
async function verifyPassword(password: string, parsed: ReturnType<typeof parseHash>) {
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
 * a WordPress site (wordpress-hashes.ts) and Django's pbkdf2_sha256 (parseHash); a valid one comes
 * back with `upgradedHash`, this service's hash of the same password, to store in its place. A
 * WordPress hash that does not match still runs a full PBKDF2 derivation; a Django one runs its own
 * count (at most 100,000). Every refusal is answered at one fixed time anyway (pace.ts).
 */
export async function checkLoginPassword(
  password: string,
  stored: string | undefined,
): Promise<LoginCheck> {
  // An empty password is never a credential, whatever hash an import holds (one of "" exists: MD5
  // d41d8cd9…): WordPress refused it after trimming (wp_authenticate_username_password), and the
  // plugin's dialect trims blanks to "". It costs a derivation, as any refusal does.
  if (password === "") {
    await verifyPassword(password, undefined);
    return { valid: false };
  }
  if (stored === undefined || wordPressHashKind(stored) === null) {
    const parsed = stored === undefined ? undefined : parseHash(stored);
    if (!(await verifyPassword(password, parsed))) return { valid: false };
    return parsed?.own
      ? { valid: true }
      : { valid: true, upgradedHash: await hashPassword(password) };
  }
  if (await verifyWordPressHash(password, stored))
    return { valid: true, upgradedHash: await hashPassword(password) };
  await verifyPassword(password, undefined);
  return { valid: false };
}

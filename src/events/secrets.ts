// Webhook signing secrets (docs/events.md#secrets). A secret is shown once, when its endpoint is
// created; it must also be read again to sign each delivery, so unlike an API key it cannot be kept as
// a hash. It is kept AES-GCM encrypted under a key derived (HKDF-SHA-256) from the Worker secret
// WEBHOOK_SECRET_KEY, which lives outside the database: a copy of the database alone (a backup, an
// export, a leaked read-only credential) does not give the secrets away.

const PREFIX = "whsec_";
/** Standard Webhooks secrets are 24 to 64 random bytes; 32 here. */
const SECRET_BYTES = 32;
const VERSION = "v1";

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A new secret in the Standard Webhooks form: `whsec_` and base64 of random bytes. */
export const generateSecret = () =>
  PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));

const keys = new Map<string, Promise<CryptoKey>>();
const WEBHOOK_SECRETS = "wallet-ledger webhook secrets v1";

/**
 * The AES key for a secret's value (WEBHOOK_SECRET_KEY) and a purpose, derived once per isolate:
 * each purpose has a key of its own, so what one seals the other cannot open.
 */
function keyFor(material: string, purpose: string) {
  let key = keys.get(`${purpose}\n${material}`);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", new TextEncoder().encode(material), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          {
            name: "HKDF",
            hash: "SHA-256",
            salt: new Uint8Array(0),
            info: new TextEncoder().encode(purpose),
          },
          base,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keys.set(`${purpose}\n${material}`, key);
  }
  return key;
}

export async function sealSecret(secret: string, material: string, purpose = WEBHOOK_SECRETS) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await keyFor(material, purpose),
    new TextEncoder().encode(secret),
  );
  return `${VERSION}:${toBase64(iv)}:${toBase64(new Uint8Array(sealed))}`;
}

/** The secret, or null when it does not open with this key (another WEBHOOK_SECRET_KEY). */
export async function openSecret(sealed: string, material: string, purpose = WEBHOOK_SECRETS) {
  const [version, iv, data] = sealed.split(":");
  if (version !== VERSION || !iv || !data) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(iv) },
      await keyFor(material, purpose),
      fromBase64(data),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}

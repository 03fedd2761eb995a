// Text sealed with AES-GCM under a key derived (HKDF-SHA-256) from a Worker secret and a purpose:
// webhook signing secrets kept in the database, a console secret carried in a cookie. Each purpose
// has a key of its own, so what one seals the other cannot open.

import { fromBase64, toBase64 } from "./base64";

const VERSION = "v1";

const keys = new Map<string, Promise<CryptoKey>>();

/** The AES key for a secret's value and a purpose, derived once per isolate. */
function keyFor(material: string, purpose: string) {
  const name = `${purpose}\n${material}`;
  let key = keys.get(name);
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
    keys.set(name, key);
  }
  return key;
}

/** `text` sealed: `v1:<iv>:<ciphertext>`, base64. */
export async function seal(text: string, material: string, purpose: string) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await keyFor(material, purpose),
    new TextEncoder().encode(text),
  );
  return `${VERSION}:${toBase64(iv)}:${toBase64(new Uint8Array(sealed))}`;
}

/** The text, or null when it does not open with this key and purpose (or is no sealed text). */
export async function unseal(sealed: string, material: string, purpose: string) {
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

import { fromBase64 } from "./base64";
import { sha256Hex } from "./sha256";

// API keys are 256 random bits shown once; only their SHA-256 is stored, so a lookup by hash is a
// constant-time comparison in effect (the secret never meets a byte-wise compare).
const KEY_PREFIX = "wk_";

const hex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

export function generateApiKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return KEY_PREFIX + hex(bytes.buffer);
}

export const hashApiKey = (key: string) => sha256Hex(key);

/** `base64(username:key)` as sent after `Key`, `Basic` or a non-JWT `Bearer`; null when malformed. */
export function decodeKeyCredential(token: string): { username: string; key: string } | null {
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(fromBase64(token));
  } catch {
    return null;
  }
  // A key holds no colon (wk_ and hex digits), so it follows the last one: a username a WordPress
  // import kept may hold colons.
  const colon = decoded.lastIndexOf(":");
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { username: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

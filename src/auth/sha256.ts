// SHA-256 of a text, as the service keeps it (API keys, mailed link tokens, throttle names) and as
// an isolate caches a verified token by. node:crypto's (nodejs_compat) is synchronous: WebCrypto's
// digest answers through a promise, several times the CPU for the short texts hashed here on every
// authenticated request.
import { createHash } from "node:crypto";

/** Lowercase hex, 64 characters. */
export const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The raw 32 bytes. */
export const sha256Bytes = (text: string) => createHash("sha256").update(text, "utf8").digest();

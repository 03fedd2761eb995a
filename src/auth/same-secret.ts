import { sha256Bytes } from "./sha256";

/** Compares two secrets in time that depends on neither (their digests have one length). */
export const sameSecret = (a: string, b: string) =>
  crypto.subtle.timingSafeEqual(sha256Bytes(a), sha256Bytes(b));

// The secret a mailed link carries: 256 random bits, base64url. Only its SHA-256 is stored
// (db/mail.ts), so a copy of the database opens no link; one use, and an expiry (docs/mail.md).
import { randomBase64Url } from "../auth/base64";
import { sha256Hex } from "../auth/sha256";

export const newLinkToken = () => randomBase64Url(32);

export const linkTokenHash = (token: string) => sha256Hex(token);

/** A token as a link carries it: 43 base64url characters; anything else is no token. */
export const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

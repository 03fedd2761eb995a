// Bytes as base64 text (RFC 4648) and back. Random bits as text that needs no escaping in a URL, a
// cookie or a JWT claim are base64url without padding: session ids and mailed link tokens.

export const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

export const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/** `bytes` random bytes in base64url: 22 characters for 16 bytes, 43 for 32. */
export const randomBase64Url = (bytes: number) =>
  toBase64(crypto.getRandomValues(new Uint8Array(bytes)))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");

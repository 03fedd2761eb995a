// Random bits as text that needs no escaping in a URL, a cookie or a JWT claim: base64url without
// padding (RFC 4648 section 5). Session ids and mailed link tokens are made here.

/** `bytes` random bytes in base64url: 22 characters for 16 bytes, 43 for 32. */
export function randomBase64Url(bytes: number) {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...random))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

// Where a webhook may point (docs/events.md#which-urls): an https:// URL on a public host. The URL
// parser has already turned the other spellings of an address (2130706433, 0x7f.1, [::ffff:7f00:1])
// into one form, so an address literal is judged by its numbers. A public name that resolves to a
// private address (DNS rebinding) cannot be seen from a Worker; Cloudflare's own network does not
// route a Worker's fetch into private networks, which is what that would aim at.

export const ENDPOINT_URL_MAX = 2000;

export type UrlRule =
  | "shape"
  | "length"
  | "host-name"
  | "scheme"
  | "credentials"
  | "port"
  | "private-host"
  | "not-public-name";

/** IPv4 ranges no webhook may reach: [first octets as a number, prefix length]. */
const PRIVATE_V4: [number, number][] = [
  [0x00000000, 8], // this network
  [0x0a000000, 8], // private
  [0x64400000, 10], // carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local (cloud metadata lives here)
  [0xac100000, 12], // private
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0000200, 24], // documentation
  [0xc0586300, 24], // the 6to4 relay anycast, deprecated (RFC 7526)
  [0xc0a80000, 16], // private
  [0xc6120000, 15], // benchmarking
  [0xc6336400, 24], // documentation
  [0xcb007100, 24], // documentation
  [0xe0000000, 3], // multicast and reserved, through 255.255.255.255
];

function v4Number(host: string): number | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p))) return null;
  const bytes = parts.map(Number);
  if (bytes.some((b) => b > 255)) return null;
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

const inV4 = (n: number, [base, bits]: [number, number]) =>
  bits === 0 || n >>> (32 - bits) === base >>> (32 - bits);

const privateV4 = (n: number) => PRIVATE_V4.some((range) => inV4(n, range));

/** An IPv6 literal (without brackets) as eight 16-bit groups, or null. */
function v6Groups(host: string): number[] | null {
  if (!host.includes(":")) return null;
  const [head, tail, ...more] = host.split("::");
  if (more.length > 0) return null;
  const parse = (s: string | undefined) =>
    s === undefined || s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16));
  const left = parse(head);
  const right = parse(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array(tail === undefined ? 0 : missing).fill(0), ...right];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function privateV6(g: number[]) {
  const embeddedV4 = ((g[6]! << 16) | g[7]!) >>> 0;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && g[5] === 0xffff) return privateV4(embeddedV4); // ::ffff:a.b.c.d
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return privateV4(embeddedV4); // ::ffff:0:a.b.c.d (translated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return privateV4(embeddedV4); // NAT64 (64:ff9b::/96)
  // Only global unicast (2000::/3) is public: this refuses the unspecified address (::), loopback
  // (::1), the deprecated v4-compatible ::a.b.c.d, unique local, link-local, multicast, discard-only
  // (100::/64), local-use NAT64 (64:ff9b:1::/48) and every range not yet assigned.
  if ((g[0]! & 0xe000) !== 0x2000) return true;
  if (g[0] === 0x2002) return privateV4(((g[1]! << 16) | g[2]!) >>> 0); // 6to4 carries an IPv4
  if (g[0] === 0x2001 && g[1]! < 0x0200) return true; // Teredo, benchmarking, ORCHID (IETF protocol assignments)
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x3fff && g[1]! < 0x1000) return true; // documentation (3fff::/20, RFC 9637)
  return false;
}

/**
 * A host name's label as the URL parser writes it (lower case, punycoded `xn--…`), as DNS resolves
 * it: no hyphen first or last (RFC 1123), which the parser lets through.
 */
const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|lan|home\.arpa|localdomain)$/;

/** The loopback spellings a dev setting (WEBHOOK_ALLOW_LOCAL) lets through, over http too. */
const isLoopback = (host: string) =>
  host === "localhost" ||
  host.endsWith(".localhost") ||
  host === "::1" ||
  (v4Number(host) !== null && v4Number(host)! >>> 24 === 127);

/** Why a URL may not be a webhook endpoint, or null when it may. */
export function endpointUrlProblem(text: string, allowLocal: boolean): UrlRule | null {
  const url = URL.parse(text);
  if (!url) return "shape";
  // Only web URLs: a scheme without a host (mailto:, data:, javascript:) is named as what it is.
  if (url.protocol !== "https:" && url.protocol !== "http:") return "scheme";
  // Any "#" starts a fragment, an empty one too (`url.hash` is "" for "…/x#").
  if (text.includes("#")) return "shape";
  // The length is the stored one: the parser percent-encodes and punycodes ("ü" can become 6).
  if (url.href.length > ENDPOINT_URL_MAX) return "length";
  // DNS holds a name of at most 253 characters, each label 1 to 63 (a trailing dot is judged below)
  // of letters, digits, hyphens and underscores: the URL parser lets `ex*ample.com` and `-.com`
  // through, which no fetch can reach. An IPv6 literal (`[…]`) is judged below.
  const labels = url.hostname.replace(/\.$/, "").split(".");
  if (
    url.hostname.length > 253 ||
    labels.some((label) => label.length === 0 || label.length > 63) ||
    (!url.hostname.startsWith("[") && !labels.every((label) => HOST_LABEL.test(label)))
  )
    return "host-name";
  if (url.port === "0") return "port"; // reaches nothing
  if (url.username !== "" || url.password !== "") return "credentials";
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (allowLocal && isLoopback(host)) return null;
  if (url.protocol !== "https:") return "scheme";
  const v4 = v4Number(host);
  if (v4 !== null) return privateV4(v4) ? "private-host" : null;
  const v6 = v6Groups(host);
  if (v6 !== null) return privateV6(v6) ? "private-host" : null;
  if (host.includes(":")) return "shape";
  if (isLoopback(host) || LOCAL_NAMES.test(host)) return "private-host";
  // A single label (intranet, metadata) names no public host.
  if (!host.includes(".") || host.endsWith(".")) return "not-public-name";
  return null;
}

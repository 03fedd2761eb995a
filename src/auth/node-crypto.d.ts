// The node:crypto functions the Worker uses (MD5, which WebCrypto lacks, and a synchronous SHA-256
// and HMAC), available through the nodejs_compat flag. Declared here because the project does not
// pull in @types/node.
declare module "node:crypto" {
  interface Hash {
    update(data: string | Uint8Array, encoding?: "utf8" | "latin1"): Hash;
    digest(): Uint8Array;
    digest(encoding: "hex" | "base64"): string;
  }
  export function createHash(algorithm: "md5" | "sha256"): Hash;
  export function createHmac(algorithm: "sha256", key: string): Hash;
}

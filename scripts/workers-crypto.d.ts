// src/auth compares secrets with crypto.subtle.timingSafeEqual, which the Workers runtime adds to
// WebCrypto and Node does not have. The tools import src/auth only to write hashes (hashPassword,
// phpassCrypt, wpPrehash) and never compare one under Node; this lets the Node program check those
// modules as they are.
import "node:crypto";

declare module "crypto" {
  namespace webcrypto {
    interface SubtleCrypto {
      timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
    }
  }
}

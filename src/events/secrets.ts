// Webhook signing secrets (docs/events.md#secrets). A secret is shown once, when its endpoint is
// created; it must also be read again to sign each delivery, so unlike an API key it cannot be kept as
// a hash. It is kept AES-GCM encrypted under a key derived (HKDF-SHA-256) from the Worker secret
// WEBHOOK_SECRET_KEY, which lives outside the database: a copy of the database alone (a backup, an
// export, a leaked read-only credential) does not give the secrets away.
import { toBase64 } from "../auth/base64";
import { seal, unseal } from "../auth/sealed";

const PREFIX = "whsec_";
/** Standard Webhooks secrets are 24 to 64 random bytes; 32 here. */
const SECRET_BYTES = 32;
const PURPOSE = "wallet-ledger webhook secrets v1";

/** A new secret in the Standard Webhooks form: `whsec_` and base64 of random bytes. */
export const generateSecret = () =>
  PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));

export const sealSecret = (secret: string, material: string) => seal(secret, material, PURPOSE);

/** The secret, or null when it does not open with this key (another WEBHOOK_SECRET_KEY). */
export const openSecret = (sealed: string, material: string) => unseal(sealed, material, PURPOSE);

// Idempotency keys (docs/api.md, "Idempotency"): a request_id is compared with its ASCII letters
// folded to lower case and every other character exactly, as the plugin's MySQL lookups effectively
// did for the ids clients send. Full Unicode lower-casing would make the Kelvin sign K (U+212A) and
// K one key, so a new credit would be answered "already exists". The database checks the same fold
// (trigger transactions_request_key_folded, drizzle/0005).

/** `text` with A–Z turned to a–z and nothing else changed. */
export const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

/** The key a request_id is stored and looked up under. */
export const requestKey = asciiLower;

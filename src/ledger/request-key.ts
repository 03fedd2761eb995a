// Idempotency keys (docs/api.md, "Idempotency"): a request_id is compared with its ASCII letters
// folded to lower case and every other character exactly, as the plugin's MySQL lookups effectively
// did for the ids clients send. Full Unicode lower-casing would make the Kelvin sign K (U+212A) and
// K one key, so a new credit would be answered "already exists". The database checks the same fold
// (trigger transactions_request_key_folded, drizzle/0005).

/** `text` with A–Z turned to a–z and nothing else changed. */
export const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

/**
 * `text` with a–z turned to A–Z and nothing else changed: names a client picks from a list (a
 * filter's value, a method) are read as PHP's strtoupper read them, so `credıt` (dotless ı) or
 * `poſt` (long s) is no `CREDIT` or `POST`, as full Unicode upper-casing would make them.
 */
export const asciiUpper = (text: string) => text.replace(/[a-z]+/g, (run) => run.toUpperCase());

/** The key a request_id is stored and looked up under. */
export const requestKey = asciiLower;

// Notices about the configuration, logged once per isolate rather than once per request: the first
// request finds them, and the log is not flooded while they last.

const logged = new Set<string>();

/** Logs `fields` as one JSON line (as the request log does), the first time `key` is seen. */
export function logOnce(key: string, fields: Record<string, unknown>, level: "log" | "error") {
  if (logged.has(key)) return;
  logged.add(key);
  console[level](JSON.stringify(fields));
}

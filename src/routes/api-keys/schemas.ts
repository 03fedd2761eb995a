import type { listKeys } from "../../wallet/api-keys";

/** A key's row as the service lists it, with its owner's username. */
type KeyRow = Awaited<ReturnType<typeof listKeys>>[number];

const iso = (ms: number) => new Date(ms).toISOString();

export const apiKeyRecord = ({ key, username }: KeyRow) => ({
  id: key.id,
  name: key.name,
  username,
  scope: key.scope,
  created_at: iso(key.createdAtMs),
});

export const apiKeyListRecord = (row: KeyRow) => ({
  ...apiKeyRecord(row),
  last_used_at: row.key.lastUsedAtMs === null ? null : iso(row.key.lastUsedAtMs),
  revoked: row.key.revokedAtMs !== null,
});

type KeyRow = {
  id: number;
  name: string;
  scope: string;
  createdAtMs: number;
  lastUsedAtMs: number | null;
  revokedAtMs: number | null;
};

const iso = (ms: number) => new Date(ms).toISOString();

export const apiKeyRecord = (key: KeyRow, username: string) => ({
  id: key.id,
  name: key.name,
  username,
  scope: key.scope,
  created_at: iso(key.createdAtMs),
});

export const apiKeyListRecord = (key: KeyRow, username: string) => ({
  ...apiKeyRecord(key, username),
  last_used_at: key.lastUsedAtMs === null ? null : iso(key.lastUsedAtMs),
  revoked: key.revokedAtMs !== null,
});

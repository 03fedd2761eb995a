import * as v from "valibot";
import { EMPTY } from "../../http/validation";

export const ApiKeyParams = v.object({
  name: v.pipe(
    v.string("name must be text"),
    v.nonEmpty(EMPTY),
    v.maxLength(100, "name must be at most 100 characters"),
  ),
  scope: v.picklist(["read", "write", "read-write"], "scope must be read, write or read-write"),
  username: v.optional(
    v.pipe(
      v.string("username must be text"),
      v.nonEmpty(EMPTY),
      v.maxLength(60, "username must be at most 60 chars"),
    ),
  ),
});

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

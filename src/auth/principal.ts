export type Role = "administrator" | "subscriber";
export type Scope = "read" | "write" | "read-write";

/**
 * Who is calling, once credentials are verified. `scope` is set only for API keys, `sessionId` only
 * for access tokens and the console's session (the session sign-out ends).
 */
export type Principal = {
  userId: number;
  username: string;
  role: Role;
  scope?: Scope;
  sessionId?: string;
};

/** Whether a key's scope (none: not a key) allows a route's access; `read-write` needs both. */
export const scopeAllows = (scope: Scope | undefined, access: Scope) =>
  scope === undefined || scope === "read-write" || scope === access;

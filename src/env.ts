import type { Principal } from "./auth/principal";

export type Bindings = Env & {
  JWT_SECRET?: string;
  TRANSACTIONS_SECURITY_CODE?: string;
};

export type Envelope = "A" | "B";

export type Variables = {
  envelope: Envelope;
  params: Record<string, unknown>;
  principal: Principal;
  requestId: string;
  /** The clock, injectable so tests can pin dates. */
  nowMs: () => number;
};

export type AppEnv = { Bindings: Bindings; Variables: Variables };

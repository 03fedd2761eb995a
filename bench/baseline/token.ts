// The baseline's bearer token secret: a bench value, never a deployed one. scripts/bench/scenarios.ts signs
// the token /select-authed verifies with it.
export const BASELINE_JWT_SECRET = "bench-baseline-jwt-secret-of-32-chars";

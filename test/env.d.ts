import type { D1Migration } from "@cloudflare/vitest-plugin";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      TEST_RATE_LIMIT: RateLimit;
      EMPTY_DB: D1Database;
      BEHIND_DB: D1Database;
      REBUILT_DB: D1Database;
    }
  }
}

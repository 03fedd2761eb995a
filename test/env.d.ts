import type { D1Migration } from "@cloudflare/vitest-pool-workers";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      JWT_SECRET?: string;
      TRANSACTIONS_SECURITY_CODE?: string;
    }
  }
}

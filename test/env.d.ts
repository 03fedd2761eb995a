import type { D1Migration } from "@cloudflare/vitest-pool-workers";
import type { Bindings } from "../src/env";

declare module "cloudflare:test" {
  interface ProvidedEnv extends Bindings {
    TEST_MIGRATIONS: D1Migration[];
  }
}

// Every console page needs the service's settings (sessions are signed with JWT_SECRET) and a
// migrated database: until a missing one is set, the console says which, and nothing is read or
// written.
import type { MiddlewareHandler } from "hono";
import { notMigrated } from "../http/errors";
import { missingSettings } from "../http/settings";
import { schemaApplied } from "../wallet/faults";
import type { ConsoleEnv } from "./env";
import { Page } from "./views";

export const requireSettings: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const missing = missingSettings(c);
  if (missing.length === 0) {
    // Answered by the console's fault page, naming `migrations`.
    if (!(await schemaApplied(c.var.service))) throw notMigrated(c);
    return next();
  }
  return c.html(
    <Page title="Service not configured">
      <section class="card">
        <h2>Service not configured</h2>
        <p>
          The service cannot sign anyone in until its operator sets:{" "}
          <strong>{missing.join(", ")}</strong>. The Worker's log says what is wrong with each;{" "}
          <code>GET /health</code> names them too.
        </p>
        <p class="muted">
          See docs/configuration.md (JWT_SECRET: at least 32 characters, a secret).
        </p>
      </section>
    </Page>,
    503,
  );
};

// An import is planned against the database as it was read, then applied: what the plan decided
// about administrators must still hold when its statements run, or the service is left with none.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import { makeAdmin } from "./helpers";
import { dump, importedAdmin, runImport } from "./import-helpers";

const administrators = async () =>
  (await env.DB.prepare("SELECT id FROM users WHERE role = 'administrator' ORDER BY id").all())
    .results;

describe("an import planned before the other administrator went", () => {
  it("leaves the last administrator one, and its sessions live, when the statements are applied", async () => {
    await runImport(); // the site's administrator, user 1
    const own = await makeAdmin(); // this service's own, with no entries
    const demoted = dump.replace(
      "(4,1,'wp_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}')",
      "(4,1,'wp_capabilities','a:1:{s:10:\\\"subscriber\\\";b:1;}')",
    );
    // Planned while `own` is an administrator too: user 1 may become a subscriber.
    const planned = await runImport({}, demoted, { apply: false });
    expect(planned.statements.map((sql) => sql.slice(0, 40))).toEqual([
      "UPDATE sessions SET revoked_at_ms = 1717",
      "UPDATE users SET role = 'subscriber' WHE",
    ]);
    // Meanwhile user 1 deletes `own`, which it may: it is an administrator itself.
    const token = await importedAdmin(1, "admin");
    const deleted = await compatCall("DELETE", `/wp-json/rimplenet/v1/users/${own.id}`, {
      headers: { Authorization: token },
      vars: GUARDED,
    });
    expect(deleted.status).toBe(200);
    await env.DB.batch(planned.statements.map((sql) => env.DB.prepare(sql)));
    expect(await administrators()).toEqual([{ id: 1 }]);
    const live = await env.DB.prepare(
      "SELECT count(*) AS n FROM sessions WHERE user_id = 1 AND revoked_at_ms IS NULL",
    ).first();
    expect(live).toEqual({ n: 1 });
  });
});

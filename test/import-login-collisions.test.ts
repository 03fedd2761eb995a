// WordPress let a username be another user's e-mail; this service refuses that for new users
// (docs/security.md#usernames-and-e-mails) but imports a site as it is, and lists every such pair
// in the report, so the operator knows which users must sign in with their own e-mail.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { emptyTarget } from "../scripts/import/target";
import { importFromText } from "../scripts/import/wordpress";
import { compatCall, GUARDED } from "./compat-helpers";
import { makeAdmin } from "./helpers";
import { IMPORT_AT, runImport } from "./import-helpers";
import { SITE_OPTIONS, siteDump } from "./site-dump";

describe("importing users whose username is another user's e-mail", () => {
  it("imports them as they are and lists each collision, the database's users included", async () => {
    // A user already in the database is named by the e-mail of the site's user 4.
    await env.DB.prepare(
      "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (100, 'member4@site.example', 'kept@service.example', 'x', 'subscriber', 0)",
    ).run();
    // The site's user 3 is named by user 2's e-mail, in another case.
    const dump = siteDump([{ id: "usd", decimals: 2 }], [], 3, { 3: "MEMBER2@site.example" });
    const run = await runImport(SITE_OPTIONS, dump);

    expect(run.report.refused).toBe(false);
    expect(run.report.conflicts).toEqual([]);
    expect(run.report.users).toMatchObject({ inDump: 4, imported: 4 });
    expect(run.report.users.loginCollisions).toEqual({
      total: 2,
      list: [
        { userId: 3, username: "MEMBER2@site.example", emailOwnerId: 2, emailOwner: "member2" },
        { userId: 100, username: "member4@site.example", emailOwnerId: 4, emailOwner: "member4" },
      ],
    });
    const imported = await env.DB.prepare(
      "SELECT id, username, email FROM users WHERE id = 3",
    ).first();
    expect(imported).toEqual({
      id: 3,
      username: "MEMBER2@site.example",
      email: "member3@site.example",
    });

    const text = formatReport(run.report);
    expect(text).toContain("usernames that are another user's e-mail (2; imported as they are)");
    expect(text).toContain("user 3 (MEMBER2@site.example): the e-mail of user 2 (member2)");

    // What the text names afterwards: the e-mail's owner.
    const admin = await makeAdmin();
    const read = await compatCall(
      "GET",
      "/wp-json/rimplenet/v1/users?user_id=member2@site.example",
      {
        headers: { Authorization: admin.bearer },
        vars: GUARDED,
      },
    );
    expect(read.body.data).toMatchObject({ id: 2, username: "member2" });
  });

  it("reports none for a site without such pairs", () => {
    const run = importFromText(siteDump([{ id: "ngn", decimals: 2 }], [], 3), {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    expect(run.report.users.loginCollisions).toEqual({ total: 0, list: [] });
    expect(formatReport(run.report)).not.toContain("another user's e-mail");
  });
});

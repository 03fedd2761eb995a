// The mailed-link verbs called without HTTP: what a request for a mail writes and sends, and what
// following its link does, with the transport the service context gives them.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { mailTokens, users } from "../src/db/schema";
import type { Mail } from "../src/mail/transport";
import type { ServiceContext } from "../src/wallet/context";
import {
  confirmPasswordReset,
  confirmVerification,
  requestPasswordReset,
  requestVerification,
} from "../src/wallet/mail-links";
import { makeUser, unique } from "./helpers";
import { refusalOf, serviceAs } from "./service-helpers";

const db = createDb(env.DB);
const linkFor = (token: string) => `https://wallet.example.test/verify?token=${token}`;

/** A context for an anonymous caller whose mail is kept in `sent`. */
function mailing(sent: Mail[]): ServiceContext {
  return {
    ...serviceAs(),
    mail: () => ({ send: { send: async (mail) => void sent.push(mail) }, perClient: 0 }),
  };
}

const tokensFor = (email: string) =>
  db.select().from(mailTokens).where(eq(mailTokens.email, email));

describe("asking for a mail", () => {
  it("without a transport is refused, naming what is missing, and writes nothing", async () => {
    const user = await makeUser();
    const ctx: ServiceContext = {
      ...serviceAs(),
      mail: () => ({ send: { missing: ["MAIL_TRANSPORT"] }, perClient: 0 }),
    };
    expect(await refusalOf(requestPasswordReset(ctx, user.email))).toEqual({
      code: "mail_not_configured",
      missing: ["MAIL_TRANSPORT"],
    });
    expect(await tokensFor(user.email)).toEqual([]);
  });

  it("writes one row for an address with an account or without, and mails only the account", async () => {
    const user = await makeUser();
    const stranger = `${unique("nobody")}@example.test`;
    const sent: Mail[] = [];
    await requestVerification(mailing(sent), user.email, linkFor);
    await requestVerification(mailing(sent), stranger, linkFor);
    expect(sent.map((m) => m.to)).toEqual([user.email]);
    expect(sent[0]!.text).toContain("https://wallet.example.test/verify?token=");
    expect((await tokensFor(user.email)).map((t) => t.userId)).toEqual([user.id]);
    expect((await tokensFor(stranger)).map((t) => t.userId)).toEqual([null]);
  });
});

describe("following a mailed link", () => {
  it("verifies the address once; a look first uses nothing up", async () => {
    const user = await makeUser();
    const sent: Mail[] = [];
    await requestVerification(mailing(sent), user.email, linkFor);
    const token = /token=(\S+)/.exec(sent[0]!.text)![1]!;
    const ctx = serviceAs();
    expect(await confirmVerification(ctx, token, true)).toBeNull();
    expect(await confirmVerification(ctx, token, false)).toMatchObject({
      userId: user.id,
      email: user.email,
    });
    const [row] = await db.select().from(users).where(eq(users.id, user.id));
    expect(row!.emailVerifiedAtMs).not.toBeNull();
    expect(await refusalOf(confirmVerification(ctx, token, false))).toEqual({
      code: "mail_link_invalid",
    });
  });

  it("a reset code sets the password once; a code of the wrong shape or unknown is refused", async () => {
    const user = await makeUser();
    const sent: Mail[] = [];
    await requestPasswordReset(mailing(sent), user.email);
    const [before] = await db.select().from(users).where(eq(users.id, user.id));
    const code = /\n([A-Za-z0-9_-]{43})\n/.exec(sent[0]!.text)![1]!;
    const ctx = serviceAs();
    expect(await refusalOf(confirmPasswordReset(ctx, "not a code", "another horse"))).toEqual({
      code: "mail_link_invalid",
    });
    expect(await confirmPasswordReset(ctx, code, "another horse")).toMatchObject({
      userId: user.id,
    });
    const [after] = await db.select().from(users).where(eq(users.id, user.id));
    expect(after!.passwordHash).not.toBe(before!.passwordHash);
    expect(await refusalOf(confirmPasswordReset(ctx, code, "a third horse"))).toEqual({
      code: "mail_link_invalid",
    });
  });
});

// The dev outbox (docs/mail.md, docs/console.md): the mails MAIL_TRANSPORT=outbox kept instead of
// sending, newest first, links included, so a developer can follow a verification link or read a
// reset code. Mounted behind the console's administrator check; empty wherever mail really goes out.
import { Hono } from "hono";
import { mailTransport } from "../mail/transport";
import { mailOutbox, OUTBOX_KEEP } from "../wallet/operators";
import type { ConsoleEnv } from "./env";
import { Empty, Page, When } from "./views";

export const outboxScreen = new Hono<ConsoleEnv>().get("/", async (c) => {
  const mails = await mailOutbox(c.var.service);
  const transport = mailTransport(c.env, c.req.url);
  const how =
    "name" in transport
      ? `Mail transport: ${transport.name}.`
      : `No mail transport is configured (${transport.missing.join(", ")}): the mail routes refuse.`;
  return c.html(
    <Page title="Outbox" session={c.var.session} current="outbox">
      <p class="muted">
        {how} With MAIL_TRANSPORT=outbox (npm run dev) mail is kept here instead of being sent; the
        newest {OUTBOX_KEEP} are kept.
      </p>
      {mails.length === 0 ? (
        <Empty>No mail yet.</Empty>
      ) : (
        mails.map((m) => (
          <section>
            <h2>{m.subject}</h2>
            <p class="muted">
              To {m.toAddress}, <When ms={m.createdAtMs} to="second" /> UTC
            </p>
            <pre>{m.bodyText}</pre>
          </section>
        ))
      )}
    </Page>,
  );
});

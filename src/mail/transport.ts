// How mail leaves the service (docs/mail.md), chosen by MAIL_TRANSPORT:
// - `cloudflare`: Cloudflare Email Service through a `send_email` binding named EMAIL, from MAIL_FROM;
// - `outbox`: kept in the dev outbox (D1 `mail_outbox`, the console's /wallet-admin/outbox) and
//   printed to the log, for `npm run dev` and the tests;
// - anything else, or a transport missing what it needs: no mail, and the routes that send some
//   say so. Nothing else in the service depends on mail.
import { maskAddresses } from "../email-address";
import { bound, isLocalAddress, mailFrom, mailTransportName } from "../settings";

export type Mail = { to: string; subject: string; text: string };

/**
 * How a mail leaves: through a binding, after the request's writes; or into the dev outbox, as a row
 * written in the same D1 batch as the request's token (db/mail.ts recordMailRequest), so a request
 * whose mail goes out makes the same D1 calls as one whose mail does not.
 */
export type MailSender = { send: (mail: Mail) => Promise<void> } | { outbox: true };

/** What the transport reads from the env: vars, and the optional binding (wrangler.toml `[[send_email]]`). */
type MailEnv = { MAIL_TRANSPORT?: string; MAIL_FROM?: string; EMAIL?: SendEmail };

type MailTransport = "cloudflare" | "outbox";

/** The setting or binding a transport lacks: a name, never a value. */
export type MailSetting = "MAIL_TRANSPORT" | "MAIL_FROM" | "EMAIL";

/**
 * The configured transport for a request to `url`, or all that is missing for one. `unintended` when
 * MAIL_TRANSPORT is set to a transport it cannot use (a misconfiguration GET /health names), not
 * left empty (no mail meant). The dev outbox keeps every mail, reset codes included, and prints it
 * to the log: it is a transport only for requests to this machine, never a deployment's
 * (`devOnly`).
 */
export function mailTransport(
  env: MailEnv,
  url: string,
): { name: MailTransport } | { missing: MailSetting[]; unintended: boolean; devOnly?: true } {
  const name = mailTransportName(env);
  if (name === "outbox")
    return isLocalAddress(url)
      ? { name }
      : { missing: ["MAIL_TRANSPORT"], unintended: true, devOnly: true };
  if (name !== "cloudflare") return { missing: ["MAIL_TRANSPORT"], unintended: name !== "" };
  const missing: MailSetting[] = [];
  if (mailFrom(env) === "") missing.push("MAIL_FROM");
  if (!bound(env, "EMAIL")) missing.push("EMAIL");
  return missing.length === 0 ? { name } : { missing, unintended: true };
}

let warned = false;

/** How to send a mail now for a request to `url`, or what is missing (logged once per isolate). */
export function mailSender(env: MailEnv, url: string): MailSender | { missing: MailSetting[] } {
  const transport = mailTransport(env, url);
  if ("missing" in transport) {
    if (!warned)
      console.log(JSON.stringify({ mail: "not configured", missing: transport.missing }));
    warned = true;
    return { missing: transport.missing };
  }
  if (transport.name === "outbox") return { outbox: true };
  const from = mailFrom(env);
  const binding = env.EMAIL!;
  return {
    send: async (mail) => {
      await binding.send({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/**
 * A mail the transport refused, for the log: its words and code (Email Service's `E_…`), every
 * address in them masked, since whom a mail was for is not the log's to keep.
 */
export function mailFailure(err: unknown) {
  const code = (err as { code?: unknown } | null)?.code;
  return { mail_failed: maskAddresses(String(err)), ...(typeof code === "string" && { code }) };
}

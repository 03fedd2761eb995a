// npm run dev's local defaults give way to what .dev.vars sets (wrangler lets --var win over it).
import { describe, expect, it } from "vitest";
import {
  devMailOutbox,
  devSecrets,
  devValue,
  devVarArgs,
  newDevVars,
} from "../../scripts/lib/dev-vars";

describe("npm run dev's --var defaults", () => {
  it("passes every default when .dev.vars sets none of them", () => {
    expect(devVarArgs("JWT_SECRET=abc\n")).toEqual([
      "--var",
      "MAIL_TRANSPORT:outbox",
      "--var",
      "WEBHOOK_ALLOW_LOCAL:true",
      "--var",
      "WEBHOOK_RETRY_BASE_S:2",
    ]);
  });

  it("leaves out a variable .dev.vars sets, quoted or not, even to an empty value", () => {
    const text = 'WEBHOOK_ALLOW_LOCAL="false"\n# a comment\nMAIL_TRANSPORT=\n';
    expect(devVarArgs(text)).toEqual(["--var", "WEBHOOK_RETRY_BASE_S:2"]);
    expect(devValue(text, "WEBHOOK_ALLOW_LOCAL")).toBe("false");
    expect(devValue(text, "WEBHOOK_RETRY_BASE_S")).toBe("2");
  });
});

describe("npm run dev's word on where mail goes", () => {
  // The Worker keeps mail in the outbox for MAIL_TRANSPORT in any letter case, spaces around it
  // (settings.ts mailTransportName): npm run dev must then give the outbox's address.
  it("reads MAIL_TRANSPORT as the Worker does", () => {
    expect(devMailOutbox("JWT_SECRET=abc\n")).toBe(true);
    expect(devMailOutbox("MAIL_TRANSPORT=Outbox\n")).toBe(true);
    expect(devMailOutbox('MAIL_TRANSPORT=" outbox "\n')).toBe(true);
    expect(devMailOutbox("MAIL_TRANSPORT=cloudflare\n")).toBe(false);
    expect(devMailOutbox("MAIL_TRANSPORT=\n")).toBe(false);
  });
});

describe("npm run dev's check of the secrets in .dev.vars", () => {
  it("reads them as wrangler does: an inline comment is no part of the value", () => {
    const short = devSecrets(
      "JWT_SECRET=short # rotate before sharing\nWEBHOOK_SECRET_KEY=k # 31\n",
    );
    expect(short).toEqual({ jwtSecret: "short", webhookKeyUsable: false, webhookKeySet: true });
    const key = "a".repeat(32);
    expect(devSecrets(`JWT_SECRET="${key}" # ok\nWEBHOOK_SECRET_KEY='${key}'\n`)).toEqual({
      jwtSecret: key,
      webhookKeyUsable: true,
      webhookKeySet: true,
    });
    expect(devSecrets("WEBHOOK_SECRET_KEY= # none\n").webhookKeySet).toBe(false);
    expect(devSecrets("# JWT_SECRET=commented out\n").jwtSecret).toBeUndefined();
  });
});

describe("npm run dev's new .dev.vars", () => {
  it("holds both secrets, and says what an empty TRANSACTIONS_SECURITY_CODE does", () => {
    const text = newDevVars();
    expect(devSecrets(text)).toEqual({
      jwtSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
      webhookKeyUsable: true,
      webhookKeySet: true,
    });
    expect(devValue(text, "TRANSACTIONS_SECURITY_CODE")).toBe("");
    // GET /transactions always asks for security_code: empty takes any integer, it is not "off".
    expect(text).toContain("(empty: any integer passes)");
    expect(text).not.toContain("leaves it off");
  });
});

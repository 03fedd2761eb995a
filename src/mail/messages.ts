// The mails the service sends: plain text, the link or code, and how long it lasts.
import type { Mail } from "./transport";

const MINUTE_MS = 60_000;
/** How long a verification link works. */
export const VERIFY_LINK_MS = 24 * 60 * MINUTE_MS;
/** How long a password reset code works. */
export const RESET_TOKEN_MS = 30 * MINUTE_MS;

const lasting = (ms: number) =>
  ms >= 60 * MINUTE_MS ? `${ms / (60 * MINUTE_MS)} hours` : `${ms / MINUTE_MS} minutes`;

export const verificationMail = (to: string, link: string): Mail => ({
  to,
  subject: "Verify your e-mail address",
  text:
    "Someone (we hope you) asked to verify this address for a wallet account.\n\n" +
    `Open this link to confirm it (it works once, for ${lasting(VERIFY_LINK_MS)}):\n${link}\n\n` +
    "If this was not you, ignore this mail: nothing changes.\n",
});

export const passwordResetMail = (to: string, token: string): Mail => ({
  to,
  subject: "Reset your password",
  text:
    "Someone (we hope you) asked to reset the password of the wallet account with this address.\n\n" +
    `Your reset code (it works once, for ${lasting(RESET_TOKEN_MS)}):\n${token}\n\n` +
    "Enter it with your new password in the app that asked for it. Setting a new password signs " +
    "the account out everywhere.\n\n" +
    "If this was not you, ignore this mail: your password stays as it is.\n",
});

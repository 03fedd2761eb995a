// src/mail/transport.ts types the EMAIL binding as the Workers runtime's SendEmail. The tools import
// it only to judge MAIL_TRANSPORT as the Worker does (lib/config-check.ts) and never send a mail
// under Node; this lets the Node program check that module as it is.
declare global {
  interface SendEmail {
    send(message: { from: string; to: string; subject: string; text: string }): Promise<unknown>;
  }
}

export {};

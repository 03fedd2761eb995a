// What an e-mail address is, one rule for a user's address and the service's own sender
// (MAIL_FROM): WordPress's is_email, an ASCII local part and dot-separated ASCII labels.

export const EMAIL_ADDRESS = /^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+@[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$/;

/** Whether `text` is an e-mail address (trim it first where spaces around it are forgiven). */
export const isEmailAddress = (text: string) => EMAIL_ADDRESS.test(text);

/**
 * `text` with each e-mail address in it replaced by `<address>`, for a log line about a mail: every
 * run of characters that may stand in an address with an `@` inside it. Each run is read once.
 */
export const maskAddresses = (text: string) =>
  text.replace(/[^\s<>()[\]"',;:]+/g, (run) => (/.@./.test(run) ? "<address>" : run));

// What an e-mail address is, one rule for a user's address and the service's own sender
// (MAIL_FROM): WordPress's is_email, at least 6 characters, an ASCII local part and at least two
// dot-separated ASCII labels, none beginning or ending with a hyphen.

const LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?";
export const EMAIL_ADDRESS = new RegExp(
  `^[a-zA-Z0-9!#$%&'*+/=?^_\`{|}~.-]+@${LABEL}(?:\\.${LABEL})+$`,
);
/**
 * The shortest address (is_email's email_too_short), checked beside the pattern: a lookahead in the
 * published pattern would fail some clients' regular expression engines.
 */
export const EMAIL_MIN_LENGTH = 6;
/** Its longest: WordPress's user_email column. */
export const EMAIL_MAX_LENGTH = 100;

/** Whether `text` is an e-mail address (trim it first where spaces around it are forgiven). */
export const isEmailAddress = (text: string) =>
  text.length >= EMAIL_MIN_LENGTH && EMAIL_ADDRESS.test(text);

/**
 * `text` with each e-mail address in it replaced by `<address>`, for a log line about a mail: every
 * run of characters that may stand in an address with an `@` inside it. Each run is read once.
 */
export const maskAddresses = (text: string) =>
  text.replace(/[^\s<>()[\]"',;:]+/g, (run) => (/.@./.test(run) ? "<address>" : run));

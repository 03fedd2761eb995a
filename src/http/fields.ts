// Wire field schemas shared by several routes, and by the console's forms, which post the same
// fields as a route's body and so decode them by one schema, in the same words. WordPress owns
// these shapes and messages, so they are written by hand; OpenAPI is generated from them.
import type { JsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { ENDPOINT_URL_MAX } from "../events/endpoint-url";
import { EVENT_TYPES, type EventType, isEventType } from "../events/records";
import type { Decimal } from "../ledger/money";
import { chars, withinChars } from "../text";
import {
  amountToMinor,
  asciiLower,
  asciiUpper,
  numberText,
  readAmount,
  utcMs,
} from "../wallet/rules";
import {
  isReservedWalletId,
  isWalletDecimals,
  isWalletId,
  isWalletType,
  normalizeWalletId,
  normalizeWalletType,
  WALLET_ID,
  WALLET_LIMITS,
  WALLET_TYPE,
} from "../wallet/wallet-shape";
import {
  holdsHidden,
  type NewWallet,
  shownTextBreak,
  type WalletRuleBreak,
} from "../wallet/wallets";
import { WEBHOOK_LIMITS } from "../wallet/webhooks";
import { AMOUNT_MESSAGES, AMOUNT_TOO_LARGE, WALLET_NOT_FOUND } from "./errors";

/** A required field left out or empty, in the plugin's words. */
export const EMPTY = "Field Cannot be empty";

const MAX_TEXT = 1000;
export const REQUEST_ID_MAX = 191;

/**
 * What a field takes, as the OpenAPI document tells clients: a JSON Schema that stands for the
 * pipe's own (src/routes/openapi.ts). A pipe's checks and transforms have no JSON Schema form, and
 * a field read as text or a number is documented as the one type a client should send. Actions
 * after it in a pipe still add their limits.
 */
export const documented = <T>(schema: JsonSchema) =>
  v.metadata<T, { documented: JsonSchema }>({ documented: schema });

/**
 * Text as a client may send it, a number too (read as its text, by `numberAs`); anything else is
 * `refusal`.
 */
export const anyText = (refusal: string, numberAs: (n: number) => string = String) =>
  v.pipe(
    v.union([v.string(), v.number()], refusal),
    v.transform((sent) => (typeof sent === "number" ? numberAs(sent) : sent)),
    documented({ type: "string" }),
  );

export const USERNAME_MAX = 60;

/** At most `max` characters (text.ts `withinChars`), refused in `text`'s words. */
const charsAtMost = (max: number, text: string) =>
  v.check((s: string) => withinChars(s, max), text);

/** At least `min` characters (text.ts `chars`), refused in `text`'s words. */
export const charsAtLeast = (min: number, text: string) =>
  v.check((s: string) => chars(s) >= min, text);

/** A username's longest, in the words every input that names a user answers. */
export const usernameAtMost = charsAtMost(
  USERNAME_MAX,
  `username must be at most ${USERNAME_MAX} chars`,
);

/** Why a field's text is refused as too long, in every dialect's words. */
export const tooLongText = (name: string, max: number) =>
  `${name} must be at most ${max} characters`;

/** Why a field is refused as no whole number, in every dialect's words. */
export const integerText = (name: string) => `${name} requires an integer`;

/** At most `max` characters, as JSON Schema's maxLength counts them. */
export const atMost = (max: number, name: string) => charsAtMost(max, tooLongText(name, max));

/** Text (or a number, read as its text) of at most `max` characters. */
export const textField = (max: number, name: string) =>
  v.pipe(
    anyText(`${name} must be text`),
    atMost(max, name),
    documented({ type: "string", maxLength: max }),
  );

/** An integer from `min` to `max`, as digits or a number (a query string sends text). */
export const integerIn = (name: string, min: number, max: number) =>
  v.pipe(
    anyText(integerText(name)),
    v.regex(/^[0-9]+$/, integerText(name)),
    v.transform(Number),
    v.minValue(min, `${name} must be between ${min} and ${max}`),
    v.maxValue(max, `${name} must be between ${min} and ${max}`),
    documented({ type: "integer", minimum: min, maximum: max }),
  );

/** A positive user id, as an integer or digits. */
export const userIdField = (name = "user_id") =>
  v.pipe(
    anyText(integerText(name)),
    v.nonEmpty(EMPTY),
    v.regex(/^[0-9]+$/, integerText(name)),
    v.check((s) => !/^0+$/.test(s), `${name} cannot be zero`),
    v.transform(Number),
    v.safeInteger(`${name} is too large`),
    documented({ type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  );

/**
 * `user_id` of a read an administrator must name its user for (http/validation.ts readerFields):
 * the document says so, since the schema alone has it optional.
 */
export const readerUserIdField = v.optional(
  v.pipe(
    userIdField(),
    v.description(
      "Required for an administrator; a subscriber may leave it out (its own) and name only itself",
    ),
  ),
);

/** `user_id` of a read about the caller's own user unless it names another. */
export const ownUserIdField = v.optional(
  v.pipe(
    userIdField(),
    v.description("Left out: the caller's own user; a subscriber may name only itself"),
  ),
);

/** A record's id as digits: at most 15 of them (past any id the ledger gives, within a safe integer). */
const ID_DIGITS = /^[0-9]{1,15}$/;

/** What a path parameter names: `id` null when its text can name nothing; `ref` that text as sent. */
type PathRef<Id> = { id: Id | null; ref: string };

/** A path parameter's text: the router hands over text, so this refuses nothing. */
export const pathText = v.pipe(v.unknown(), v.transform(String));

/**
 * The one reading of a record's id in a path (`{id}`, `{user_id}`): ID_DIGITS (the route's path
 * matches no other text than digits, route.ts honoPath). Longer digits name nothing, which each
 * route answers as its unknown id, naming the text sent: never a 400.
 */
export const pathIdField = v.pipe(
  pathText,
  documented({ type: "integer", minimum: 0 }),
  v.transform((ref): PathRef<number> => ({ id: ID_DIGITS.test(ref) ? Number(ref) : null, ref })),
);

/** The input of a route on the one record its `{id}` names. */
export const IdPath = v.object({ id: pathIdField });

/** A lower-case rule (wallet/wallet-shape.ts) as a client may send it: letters in either case. */
const caseless = (rule: RegExp) => rule.source.replaceAll("a-z", "A-Za-z");

/** A wallet id as documented: the one rule, letters in either case. */
const WALLET_ID_SCHEMA = { type: "string", pattern: caseless(WALLET_ID) } as const;

/**
 * A wallet id in a path, by the one wallet-id rule (wallet/wallet-shape.ts); anything else names
 * none.
 */
export const pathWalletIdField = v.pipe(
  pathText,
  documented(WALLET_ID_SCHEMA),
  v.transform((ref): PathRef<string> => {
    const id = normalizeWalletId(ref);
    return { id: isWalletId(id) ? id : null, ref };
  }),
);

export const walletIdField = v.pipe(
  v.string(WALLET_NOT_FOUND),
  v.nonEmpty(EMPTY),
  v.transform(normalizeWalletId),
  v.check(isWalletId, WALLET_NOT_FOUND),
  documented(WALLET_ID_SCHEMA),
);

/**
 * Any text of 1-191 characters, kept exactly. Whitespace-only is empty (the plugin trimmed it away);
 * whitespace around other text is refused rather than trimmed, so " abc" can never be mistaken for
 * "abc" or for a different key. Keys compare ASCII letters case-insensitively (ledger/request-key.ts).
 */
export const requestIdField = v.pipe(
  // A number is the key of its plain decimal text, as an amount reads it (`1e21` is
  // "1000000000000000000000", `1e-7` "0.0000001"), so the same digits sent as text are the same key.
  anyText("request_id must be text", (n) => numberText(n) ?? String(n)),
  v.check((s) => s.trim() !== "", EMPTY),
  v.check((s) => s.trim() === s, "request_id must not begin or end with whitespace"),
  atMost(REQUEST_ID_MAX, "request_id"),
  documented({
    type: "string",
    minLength: 1,
    maxLength: REQUEST_ID_MAX,
    pattern: String.raw`^\S(?:[\s\S]*\S)?$`,
  }),
);

export const AMOUNT_TEXT_MAX = 40;

/**
 * Why an amount's text longer than AMOUNT_TEXT_MAX is refused. A JSON number a double cannot hold
 * arrives written out (http/params.ts: `1e400` as 401 digits), in characters the client never sent,
 * so one not positive, or too large at no decimal places (so for every wallet), is refused as that;
 * any other text (a fraction longer than any wallet's places among it) for its length. Each dialect
 * words the reason.
 */
export function overlongAmount(text: string): "not-positive" | "too-large" | "too-long" {
  const amount = readAmount(text);
  if (amount === "not-positive") return amount;
  if (typeof amount === "string") return "too-long";
  const whole = amountToMinor(amount.integer || "0", { decimals: 0 }, "refuse-excess-places");
  return whole === "too-large" ? whole : "too-long";
}

/** An amount's text past AMOUNT_TEXT_MAX, as either dialect words it for its field. */
export const amountTooLong = (field: string) => tooLongText(field, AMOUNT_TEXT_MAX);

const OVERLONG_AMOUNT_TEXT = {
  "not-positive": AMOUNT_MESSAGES["not-positive"],
  "too-large": AMOUNT_TOO_LARGE,
  "too-long": amountTooLong("amount"),
};

const amountField = v.pipe(
  v.union([v.string(), v.number()], AMOUNT_MESSAGES["not-numeric"]),
  v.check((x) => x !== "", EMPTY),
  v.rawCheck(({ dataset, addIssue }) => {
    const text = String(dataset.value);
    if (dataset.typed && !withinChars(text, AMOUNT_TEXT_MAX))
      addIssue({ message: OVERLONG_AMOUNT_TEXT[overlongAmount(text)] });
  }),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const amount = readAmount(dataset.value);
    if (typeof amount !== "string") return amount;
    addIssue({ message: AMOUNT_MESSAGES[amount] });
    return NEVER;
  }),
  documented({
    anyOf: [
      { type: "number", exclusiveMinimum: 0 },
      // Digits with one a 1-9, as readAmount takes them: a text of zeros is not above zero. No
      // lookahead or (?:), which not every generator's regular expressions read.
      {
        type: "string",
        maxLength: AMOUNT_TEXT_MAX,
        pattern: String.raw`^([0-9]*[1-9][0-9]*(\.[0-9]+)?|[0-9]+\.[0-9]*[1-9][0-9]*)$`,
      },
    ],
    description: 'In the wallet\'s major units ("12.50"); text keeps every digit exact',
  }),
);

export const noteField = v.optional(textField(MAX_TEXT, "note"), "");

/** A note the verb words itself when none is sent (left out, or empty): `instead`, as documented. */
const noteOr = (instead: string) =>
  v.optional(
    v.pipe(textField(MAX_TEXT, "note"), v.description(`Left out or empty: ${instead}`)),
    "",
  );

/** A reversal's note (wallet/movements.ts `opposite`), on each entry it writes. */
const reversalNote = noteOr("`Reversal of transaction <id>`, naming the entry each one reverses");

/** What noteField says of a note a dialect has read as text itself: its refusal, or undefined. */
export const noteRefusal = (note: string) => v.safeParse(noteField, note).issues?.[0].message;

/** Credits and debits: key order is the order the plugin reported errors in. */
export const EntryParams = v.object({
  // A missing user_id counts as zero, as the plugin's (int) cast made it.
  user_id: v.optional(userIdField(), "0"),
  wallet_id: walletIdField,
  request_id: requestIdField,
  amount: amountField,
  note: noteField,
});

export const TransferParams = v.object({
  from_user_id: userIdField("from_user_id"),
  to_user_id: userIdField("to_user_id"),
  wallet_id: walletIdField,
  request_id: requestIdField,
  amount: amountField,
  note: noteField,
});

/** A decoded amount as a verb takes it: wallet/v1 refuses places past what the wallet accepts. */
export const amountSent = (amount: Decimal) => ({
  sent: amount.text,
  policy: "refuse-excess-places" as const,
});

/** A decoded movement as a verb takes it. */
export const movementOf = (f: { wallet_id: string; amount: Decimal; note: string }) => ({
  walletId: f.wallet_id,
  amount: amountSent(f.amount),
  note: f.note,
});

/** One of `choices`, in any ASCII letter case (`upper`: the choices are upper case); else `message`. */
export const choiceField = <const T extends readonly string[]>(
  choices: T,
  message: string,
  { upper = false } = {},
) =>
  v.pipe(
    v.string(message),
    v.transform((s) => (upper ? asciiUpper(s) : asciiLower(s))),
    v.picklist(choices, message),
  );

export const ReverseParams = v.object({ request_id: requestIdField, note: reversalNote });

/** A batch's reversal: its note (the batch is named by its path). */
export const ReverseBatchParams = v.object({ note: reversalNote });

// ISO 8601 date or date-time; without an offset it is read as UTC. A year is four digits, or six
// with a sign (the expanded form the answers write for a year before 0 or after 9999; -000000 is
// not one).
const ISO_8601 =
  /^(?:\d{4}|\+\d{6}|-(?!0{6})\d{6})-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const DAY = /^(\d{4}|[+-]\d{6})-(\d{2})-(\d{2})/;

/**
 * Whether text starting `YYYY-MM-DD` (or `±YYYYYY-MM-DD`) names a calendar day: Date.parse rolls
 * 2022-02-31 over to March, so the day must read back the same.
 */
export function isCalendarDay(text: string) {
  const [, year, month, date] = DAY.exec(text) ?? [];
  if (year === undefined) return false;
  const [y, m, d] = [Number(year), Number(month), Number(date)];
  const day = new Date(utcMs(y, m, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

const DAY_MS = 86_400_000;

/** Whether an ISO 8601 text is a date alone (read as its midnight, UTC). */
const dateOnly = (text: string) => !/[T ]/i.test(text);

/** A fraction of a second with a digit other than 0 past the millisecond (`.0001`). */
const PAST_THE_MILLISECOND = /\.\d{3}\d*[1-9]/;

/**
 * A date and time as Date.parse reads it by ISO 8601's rules, `Z` (UTC) where no offset is given.
 * Written with a space for `T`, it goes to Date.parse's fallback parser, which reads a year from
 * 0000 to 0099 as 1950-2049 (`0049-11-02 09:30:00` as 2049) or not at all.
 */
const isoDateTime = (text: string) =>
  `${text.replace(" ", "T")}${/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? "" : "Z"}`;

/**
 * An ISO 8601 instant (a date alone is its midnight, UTC; no offset means UTC), in epoch ms. Date.parse
 * drops the digits past the millisecond; an instant with any is half a millisecond later, so that
 * it stays after its millisecond's start and before the next: 09:30:00.0001 is after an entry dated
 * 09:30:00 (a ceiling to seconds says so), as 09:30:00.5 is, and still in the second 09:30:00.
 * With `wholeDay`, the end of a range that includes it, a date alone is its day's last millisecond:
 * `to=2026-11-30` takes in all of November 30th, as whoever wrote the date meant.
 */
export const isoInstant = (name: string, { wholeDay = false } = {}) =>
  v.pipe(
    v.string(`${name} requires an ISO 8601 date`),
    v.regex(ISO_8601, `${name} requires an ISO 8601 date`),
    v.check(isCalendarDay, `${name} requires an ISO 8601 date`),
    v.transform((s) =>
      dateOnly(s)
        ? Date.parse(s) + (wholeDay ? DAY_MS - 1 : 0)
        : Date.parse(isoDateTime(s)) + (PAST_THE_MILLISECOND.test(s) ? 0.5 : 0),
    ),
    v.check((ms) => Number.isFinite(ms), `${name} requires an ISO 8601 date`),
  );

/**
 * `isoInstant` in whole epoch seconds: the second it falls in, or with `up` the first second that
 * starts at or after it. Entries are dated in whole seconds, so one dated in an instant's own second
 * is before the instant: an exclusive upper bound (`before`) rounds up.
 */
export const isoDate = (name: string, { up = false } = {}) =>
  v.pipe(
    isoInstant(name),
    v.transform((ms) => (up ? Math.ceil(ms / 1000) : Math.floor(ms / 1000))),
  );

// Wallets, API keys, holds and webhooks: beyond the plugin, and posted by the console's forms too.
const required = (max: number, name: string) =>
  v.pipe(
    v.string(`${name} must be text`),
    v.nonEmpty(EMPTY),
    atMost(max, name),
    documented({ type: "string", minLength: 1, maxLength: max }),
  );

/** Text shown to users or operators as it is: nothing in it may change how the rest reads. */
const plain = (name: string) =>
  v.check((text: string) => !holdsHidden(text), WALLET_RULE_TEXTS.hidden(name));

const shown = (max: number, name: string) => v.pipe(required(max, name), plain(name));

/** What a wallet's name or symbol may not hold (wallet/wallets.ts shownTextBreak), as documented. */
const WALLET_TEXT_RULES = {
  name: "No control, bidirectional or invisible characters",
  symbol:
    "Written beside amounts: it may not begin or end with a digit or a sign (`+`, `-`, `−`), nor hold control, bidirectional or invisible characters",
};

/** A wallet's name or symbol, by the wallet rule (wallet/wallets.ts shownTextBreak). */
const walletText = (field: "name" | "symbol", max: number) =>
  v.pipe(
    v.string(`${WALLET_FIELD[field]} must be text`),
    v.nonEmpty(EMPTY),
    v.rawCheck<string>(({ dataset, addIssue }) => {
      const broken = dataset.typed && shownTextBreak(field, dataset.value);
      if (broken) addIssue({ message: walletRuleText(broken) });
    }),
    documented({ type: "string", minLength: 1, maxLength: max }),
    v.description(WALLET_TEXT_RULES[field]),
  );

/**
 * The words of the wallet rules (wallet/wallets.ts), as both dialects answer them; `hidden` is also
 * every other shown text's.
 */
const WALLET_RULE_TEXTS = {
  id: "wallet_id must start with a letter and hold at most 32 of a-z, 0-9 and _",
  reserved: "wallet_id formatted is reserved",
  decimals: `wallet_decimal must be an integer from 0 to ${WALLET_LIMITS.decimalsMax}`,
  type: "wallet_type must hold 1 to 32 of a-z, 0-9, _ and -",
  hidden: (field: string) =>
    `${field} must not hold control, bidirectional or invisible characters`,
  joinsNumber:
    "wallet_symbol must not begin or end with a digit or a sign: it would read as part of the amount",
};

/** Each wallet rule's field, by the name both dialects give it. */
export const WALLET_FIELD: Record<WalletRuleBreak["field"], string> = {
  id: "wallet_id",
  name: "wallet_name",
  symbol: "wallet_symbol",
  note: "wallet_note",
  decimals: "wallet_decimal",
  type: "wallet_type",
};

/** A broken wallet rule in both dialects' words. */
export function walletRuleText(b: WalletRuleBreak) {
  const field = WALLET_FIELD[b.field];
  if (b.rule === "too-long") return tooLongText(field, b.max);
  if (b.rule === "empty") return EMPTY;
  if (b.rule === "reserved") return WALLET_RULE_TEXTS.reserved;
  if (b.rule === "hidden") return WALLET_RULE_TEXTS.hidden(field);
  if (b.rule === "joins-number") return WALLET_RULE_TEXTS.joinsNumber;
  return WALLET_RULE_TEXTS[b.field];
}

export const ApiKeyParams = v.object({
  name: shown(100, "name"),
  scope: v.picklist(["read", "write", "read-write"], "scope must be read, write or read-write"),
  username: v.optional(
    v.pipe(
      v.string("username must be text"),
      v.nonEmpty(EMPTY),
      usernameAtMost,
      documented({ type: "string", minLength: 1, maxLength: USERNAME_MAX }),
      v.description("The user whose key it is. Left out: the caller"),
    ),
  ),
});

export const WalletParams = v.object({
  wallet_id: v.pipe(
    v.string("wallet_id must be text"),
    v.nonEmpty(EMPTY),
    v.transform(normalizeWalletId),
    v.check(isWalletId, WALLET_RULE_TEXTS.id),
    v.check((id) => !isReservedWalletId(id), WALLET_RULE_TEXTS.reserved),
    documented({ ...WALLET_ID_SCHEMA, description: "`formatted` is reserved" }),
  ),
  wallet_name: walletText("name", WALLET_LIMITS.nameMax),
  wallet_symbol: walletText("symbol", WALLET_LIMITS.symbolMax),
  wallet_symbol_position: v.optional(
    v.picklist(["left", "right"], "wallet_symbol_position must be left or right"),
    "left",
  ),
  wallet_decimal: v.optional(
    v.pipe(
      anyText(WALLET_RULE_TEXTS.decimals),
      v.regex(/^[0-9]$/, WALLET_RULE_TEXTS.decimals),
      v.transform(Number),
      v.check(isWalletDecimals, WALLET_RULE_TEXTS.decimals),
      documented({ type: "integer", minimum: 0, maximum: WALLET_LIMITS.decimalsMax }),
    ),
    2,
  ),
  wallet_type: v.optional(
    v.pipe(
      v.string("wallet_type must be text"),
      v.transform(normalizeWalletType),
      v.check(isWalletType, WALLET_RULE_TEXTS.type),
      documented({ type: "string", pattern: caseless(WALLET_TYPE) }),
    ),
    "fiat",
  ),
  wallet_note: v.optional(textField(WALLET_LIMITS.noteMax, "wallet_note"), ""),
});

/** A new wallet as WalletParams decoded it. */
export const walletOf = (f: v.InferOutput<typeof WalletParams>): NewWallet => ({
  id: f.wallet_id,
  name: f.wallet_name,
  symbol: f.wallet_symbol,
  symbolPosition: f.wallet_symbol_position,
  decimals: f.wallet_decimal,
  type: f.wallet_type,
  note: f.wallet_note,
});

export const CaptureHoldParams = v.object({
  // Omitted: the whole hold. At most the held amount; the rest is released.
  amount: v.optional(
    v.pipe(
      amountField,
      v.description(
        'In the wallet\'s major units ("12.50"), at most the held amount; left out: all of it',
      ),
    ),
  ),
  // The capture's DEBIT's note (wallet/holds.ts captureHold).
  note: noteOr("`Capture of hold <id>`"),
});

/** Event type names (spaces around them ignored, repeats and blanks dropped), each a known type. */
export const eventTypeNames = (name: string) =>
  v.rawTransform<string[], EventType[]>(({ dataset, addIssue, NEVER }) => {
    const types = [...new Set(dataset.value.map((t) => t.trim()))].filter((t) => t !== "");
    if (types.every(isEventType)) return types;
    addIssue({ message: `${name} must name event types among ${EVENT_TYPES.join(", ")}` });
    return NEVER;
  });

/** `events`: a list of types, or the same comma-separated (a form body's one value). */
const eventTypes = v.pipe(
  v.union([v.string(), v.array(v.string())], "events must be a list of event types"),
  v.transform((x) => (typeof x === "string" ? x.split(",") : x)),
  eventTypeNames("events"),
  v.check((types) => types.length > 0, EMPTY),
  documented({
    type: "array",
    items: { enum: [...EVENT_TYPES] },
    minItems: 1,
    description: "The event types it receives; a form body sends them comma-separated",
  }),
);

export const WebhookParams = v.object({
  url: v.pipe(
    required(ENDPOINT_URL_MAX, "url"),
    v.description(
      "An absolute `https://` URL of a public host, without a user name, password or #fragment (`WEBHOOK_ALLOW_LOCAL` lets a loopback host through, over `http://` too)",
    ),
  ),
  events: eventTypes,
  description: v.optional(
    v.pipe(
      v.string("description must be text"),
      atMost(WEBHOOK_LIMITS.descriptionMax, "description"),
      plain("description"),
      documented({ type: "string", maxLength: WEBHOOK_LIMITS.descriptionMax }),
    ),
    "",
  ),
});

export const ResendParams = v.object({
  event_id: v.pipe(
    anyText(integerText("event_id")),
    v.regex(ID_DIGITS, integerText("event_id")),
    v.transform(Number),
    documented({ type: "integer", minimum: 0, maximum: 10 ** 15 - 1 }),
  ),
});

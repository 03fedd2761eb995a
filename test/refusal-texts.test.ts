// Every text a refusal answers with is written in the docs, as the code words it: a new field
// error or message under a code the catalogue already has fails here until the docs say it. The
// texts come from the code itself: the service's refusals as http/errors.ts words them, and every
// route's field schemas, read (the messages they hold) and tried (the ones a check writes itself).
import { describe, expect, it } from "vitest";
import apiDoc from "../docs/api.md?raw";
import compatDoc from "../docs/compat.md?raw";
import consoleDoc from "../docs/console.md?raw";
import errorsDoc from "../docs/errors.md?raw";
import { COMPAT_ROUTES } from "../src/compat";
import { DELETE_REFUSED } from "../src/compat/admin-deletes";
import { AMOUNT_FIELDS, amountRefused, overlongRefused } from "../src/compat/amounts";
import { jwtRouteRefusals, keyRouteRefusals } from "../src/compat/auth";
import { META_DATA_REFUSED } from "../src/compat/entries";
import { LIST_REFUSED } from "../src/compat/lists";
import { REQUIRES_TEXT } from "../src/compat/php";
import {
  ENTITIES_REQUIRED,
  invalidWallet,
  requiredText,
  USER_NOT_FOUND,
} from "../src/compat/respond";
import {
  insufficientBalance,
  TRANSFER_REQUEST_ID_TEXT,
  transferRefused,
} from "../src/compat/transfers";
import { VERIFY_EMAIL_REFUSED } from "../src/compat/verify-email";
import { WALLET_EXISTS, WALLET_NUMBER_TEXT } from "../src/compat/wallets-create";
import { noUserText } from "../src/console/api";
import { FOREIGN_REQUEST } from "../src/console/boundary";
import { FORM_EXPIRED, unreadableForm } from "../src/console/sign-in";
import type { Wallet } from "../src/db/wallets";
import type { UrlRule } from "../src/events/endpoint-url";
import { BODY_TOO_LARGE } from "../src/http/body-limit";
import { MALFORMED } from "../src/http/decode";
import {
  ApiError,
  DATABASE_RETRY,
  OBJECT_RETRY,
  permissionDenied,
  refusalAnswer,
} from "../src/http/errors";
import { AMOUNT_TEXT_MAX, EMPTY, noteField } from "../src/http/fields";
import { ROUTE_REFUSED, UNREADABLE_MULTIPART } from "../src/http/params";
import { PAIRS_REFUSED } from "../src/http/php-vars";
import type { Route } from "../src/http/route";
import { CLASH } from "../src/http/user-fields";
import { checkFields } from "../src/http/validation";
import type { AmountRefusal } from "../src/ledger/money";
import { ROUTES } from "../src/routes";
import { SECURITY_FAILED } from "../src/routes/transactions/list";
import { TOO_MANY_WALLETS } from "../src/wallet/balances";
import { BATCH_REVERSAL_KEPT } from "../src/wallet/batch-reversal";
import { NOT_REVERSIBLE } from "../src/wallet/movements";
import { Refusal, type RefusalReason } from "../src/wallet/refusal";
import { RANGE_REFUSED, STATEMENT_TOO_LONG } from "../src/wallet/statements";
import { HISTORY_TOO_LONG } from "../src/wallet/transactions";

/** A variable part of a text, written `<id>`, `<n>`, `<field>`…, in the docs and in the texts below. */
const PLACEHOLDER = /<[\w .[\]-]+>/g;

/** What a placeholder stands for: a word, or a list of them (`held, captured, voided`). */
const WORDS = String.raw`[^\s"]+(?:, [^\s"]+)*`;

/** `text` as a pattern that takes any words where it has placeholders. */
const patternOf = (text: string) =>
  new RegExp(
    `^${text
      .split(PLACEHOLDER)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(WORDS)}$`,
  );

/**
 * Whether `doc` quotes `text`: as a `code span`, or a "string" in one or in a code block (a JSON
 * answer). A placeholder on either side stands for the words of the other: the docs' `<field>` for
 * `amount`, a text's `<id>` for the docs' example `ngn`. A line break inside a span is a space.
 */
function quotes(doc: string) {
  const blocks = [...doc.matchAll(/^```.*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  // A line break and the next line's indent are one space; spaces within a line are kept, as the
  // plugin's texts hold two in places.
  const prose = doc.replace(/^```.*\n[\s\S]*?^```/gm, "").replace(/[ \t]*\n\s*/g, " ");
  const spans = [...prose.matchAll(/(`+)(.+?)\1/g)].map((m) => m[2]!.trim());
  const quoted = [...spans, ...blocks].flatMap((span) =>
    [...span.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!),
  );
  const snippets = [...spans, ...quoted];
  const patterns = snippets
    .filter((q) => /[a-z]{2}/i.test(q.replace(PLACEHOLDER, "")))
    .map(patternOf);
  return (text: string) =>
    patterns.some((p) => p.test(text)) || snippets.some((q) => patternOf(text).test(q));
}

/** The texts an answer's `error` holds: its list's, its object's values (not ids or statuses). */
function textsOf(error: unknown): string[] {
  if (typeof error === "string") return /\s/.test(error.trim()) ? [error] : [];
  if (Array.isArray(error)) return error.flatMap(textsOf);
  if (error && typeof error === "object") return Object.values(error).flatMap(textsOf);
  return [];
}

/** Every message a valibot schema holds: its own, its pipe's, its entries', items' and options'. */
function messagesOf(schema: unknown, out = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== "object") return out;
  const s = schema as Record<string, unknown>;
  if (typeof s.message === "string") out.add(s.message);
  const parts = [s.pipe, s.options, s.item, s.wrapped, s.rest, s.key, s.value];
  if (s.entries && typeof s.entries === "object") parts.push(Object.values(s.entries));
  for (const part of parts.flat()) messagesOf(part, out);
  return out;
}

/** Values each field is tried with: wrong types, edges, text past its limits. */
const TRIES: unknown[] = [
  "",
  " ",
  "x",
  " x",
  "0",
  "-1",
  -1,
  0,
  1.5,
  1e30,
  "0.001",
  "9".repeat(41),
  `0.${"1".repeat(40)}`,
  "a".repeat(2049),
  "\u202e",
  "1x",
  [],
  ["x"],
  {},
  true,
  null,
];

/** A text that names the value tried, with `<value>` in its place. */
function echoed(text: string, value: unknown) {
  const sent = String(value).trim();
  if (sent === "") return text;
  return text
    .split(" ")
    .map((word) => (word === sent ? "<value>" : word))
    .join(" ");
}

type FieldSchema = Parameters<typeof checkFields>[0];

/**
 * The field texts a route's schema answers: the messages it holds, and those its checks write
 * themselves (an amount's, a wallet rule's), as trying each field with TRIES shows them.
 */
function fieldTexts(routes: readonly Route[]) {
  const texts = new Set<string>();
  for (const route of routes) {
    const schema = route.params?.schema as FieldSchema | undefined;
    if (!schema?.entries) continue;
    const held = messagesOf(schema);
    for (const m of held) texts.add(m);
    for (const field of Object.keys(schema.entries))
      for (const value of TRIES)
        for (const text of textsOf(checkFields(schema, { [field]: value }).errors ?? {}))
          texts.add(held.has(text) ? text : echoed(text, value));
  }
  return [...texts].filter((t) => /\s/.test(t.trim()));
}

// Placeholders as values: the answer's text then shows where each variable part goes.
const n = "<n>" as unknown as number;
const WALLET = { id: "<id>", decimals: n } as unknown as Wallet;
const AMOUNT_REFUSALS = {
  "not-numeric": 0,
  "not-positive": 0,
  "too-large": 0,
  "too-many-decimals": 0,
} satisfies Record<AmountRefusal, 0>;
const URL_RULES = {
  shape: 0,
  length: 0,
  "host-name": 0,
  scheme: 0,
  credentials: 0,
  port: 0,
  "private-host": 0,
  "not-public-name": 0,
} satisfies Record<UrlRule, 0>;

/**
 * Each refusal of the service, in every form its words take. Keyed by code, so a new code does not
 * type-check until it is tried here. `not_reversible` and `invalid_field` carry the words of the
 * verb that refused, as it names them (wallet/movements.ts, batch-reversal.ts, balances.ts,
 * statements.ts, transactions.ts).
 */
const REFUSALS: { [C in RefusalReason["code"]]: Extract<RefusalReason, { code: C }>[] } = {
  not_signed_in: [{ code: "not_signed_in" }],
  forbidden: [{ code: "forbidden" }],
  scope_exceeded: [{ code: "scope_exceeded" }],
  user_not_found: [{ code: "user_not_found", userId: "<user>" }],
  wallet_not_found: [{ code: "wallet_not_found", walletId: "<id>" }],
  amount_refused: (Object.keys(AMOUNT_REFUSALS) as AmountRefusal[]).map((refusal) => ({
    code: "amount_refused",
    refusal,
    wallet: WALLET,
  })),
  insufficient_balance: [{ code: "insufficient_balance" }],
  balance_limit: [{ code: "balance_limit" }],
  same_user: [{ code: "same_user" }],
  transaction_exists: [{ code: "transaction_exists", existingId: n }],
  hold_exists: [{ code: "hold_exists", holdId: n }],
  hold_not_found: [{ code: "hold_not_found", ref: "<id>" }],
  hold_resolved: [{ code: "hold_resolved", holdId: n, status: "<status>" as "captured" }],
  capture_exceeds_hold: [{ code: "capture_exceeds_hold", heldText: "<held>" }],
  transaction_not_found: [{ code: "transaction_not_found", ref: "<id>" }],
  not_reversible: [...Object.values(NOT_REVERSIBLE), BATCH_REVERSAL_KEPT].map((why) => ({
    code: "not_reversible",
    why,
  })),
  already_reversed: [{ code: "already_reversed", ref: "<id>" }],
  api_key_not_found: [{ code: "api_key_not_found", ref: "<id>" }],
  wallet_exists: [{ code: "wallet_exists", walletId: "<id>" }],
  wallet_units_kept: [
    { code: "wallet_units_kept", walletId: "<id>", units: { decimals: n, extraDecimals: 0 } },
    { code: "wallet_units_kept", walletId: "<id>", units: { decimals: 2, extraDecimals: 1 } },
  ],
  webhook_not_found: [{ code: "webhook_not_found", ref: "<id>" }],
  webhook_url_refused: (Object.keys(URL_RULES) as UrlRule[]).map((rule) => ({
    code: "webhook_url_refused",
    rule,
  })),
  event_not_found: [{ code: "event_not_found", eventId: n }],
  too_many_sign_ins: [{ code: "too_many_sign_ins", retryAfterS: n }],
  rate_limited: [{ code: "rate_limited", retryAfterS: n }],
  history_busy: [{ code: "history_busy" }],
  invalid_credential: [{ code: "invalid_credential" }],
  no_session: [{ code: "no_session" }],
  mail_not_configured: [{ code: "mail_not_configured", missing: ["MAIL_FROM"] }],
  too_many_mails: [
    { code: "too_many_mails", retryAfterS: n, spent: "address" },
    { code: "too_many_mails", retryAfterS: n, spent: "client" },
  ],
  mail_link_invalid: [{ code: "mail_link_invalid" }],
  invalid_field: [
    ...Object.entries(RANGE_REFUSED).map(([field, why]) => ({ field, why })),
    { field: "wallet_id", why: TOO_MANY_WALLETS },
    ...[HISTORY_TOO_LONG, STATEMENT_TOO_LONG].map((t) => ({ field: t.field, why: t.why("<n>") })),
  ].map((f) => ({ code: "invalid_field", ...f })),
  batch_operation: [
    { code: "batch_operation", index: n, refused: "insufficient-balance" },
    { code: "batch_operation", index: n, refused: { code: "user_not_found", userId: "<user>" } },
  ],
  batch_unbalanced: [
    { code: "batch_unbalanced", walletId: "<id>", creditsText: "<c>", debitsText: "<d>" },
  ],
  batch_exists: [{ code: "batch_exists", batchId: n }],
  batch_not_found: [{ code: "batch_not_found", ref: "<id>" }],
  batch_already_reversed: [{ code: "batch_already_reversed", ref: "<id>" }],
  batch_reversal_refused: [
    { code: "batch_reversal_refused", entryId: n, refused: "insufficient-balance" },
    { code: "batch_reversal_refused", entryId: n, refused: "balance-limit" },
  ],
};

const inWalletDocs = quotes(`${errorsDoc}\n${apiDoc}`);
const inCompatDoc = quotes(compatDoc);

/** An answer's texts: its message (when it has words) and its `error`'s. */
const answerTexts = (err: ApiError | Refusal) => {
  const answer = err instanceof ApiError ? err : refusalAnswer(err);
  return answer ? [answer.message, ...textsOf(answer.error)].filter((t) => /\s/.test(t)) : [];
};

/** A part of a request a MalformedRequest names. */
const PART = "<part>";

/** Why a request could not be read, in either dialect (http/decode.ts, params.ts, php-vars.ts). */
const MALFORMED_TEXTS = [
  ...Object.values(MALFORMED).map((t) => (typeof t === "string" ? t : t(PART))),
  UNREADABLE_MULTIPART,
  ...Object.values(ROUTE_REFUSED),
  ...Object.values(PAIRS_REFUSED).map((t) => t(PART)),
];

/**
 * What wallet/v1 answers outside the service's refusals: a refused credential, a wrong
 * `security_code`, a body past its size, D1 or a Durable Object that could not answer.
 */
const WALLET_ROUTE_TEXTS = [
  ...Object.values(permissionDenied).flatMap((refusal) => answerTexts(refusal())),
  SECURITY_FAILED,
  BODY_TOO_LARGE,
  DATABASE_RETRY,
  ...Object.values(OBJECT_RETRY),
];

/**
 * The amount refusals the plugin's routes can answer: its amounts are rounded to the wallet's
 * places (PLUGIN_ROUNDING), never refused for them.
 */
const PLUGIN_AMOUNT_REFUSALS = (Object.keys(AMOUNT_REFUSALS) as AmountRefusal[]).filter(
  (refusal) => refusal !== "too-many-decimals",
);

/** A refusal the plugin's transfers word themselves, for each way the verb refuses one. */
const TRANSFER_REFUSALS: [RefusalReason, amount: string][] = [
  [{ code: "user_not_found", userId: "<user>" }, "1"],
  [{ code: "same_user" }, "1"],
  [{ code: "wallet_not_found", walletId: "<id>" }, "1"],
  [{ code: "balance_limit" }, "1"],
  [{ code: "amount_refused", refusal: "not-positive", wallet: WALLET }, "0"],
  [{ code: "amount_refused", refusal: "not-positive", wallet: WALLET }, "-1"],
  ...PLUGIN_AMOUNT_REFUSALS.map((refusal): [RefusalReason, string] => [
    { code: "amount_refused", refusal, wallet: WALLET },
    "1",
  ]),
];

/**
 * The plugin's own refusals outside its route schemas: its checks' texts (`requires`, the amounts,
 * meta_data, a wallet's numbers), its answers for a read's empty fields and an unknown wallet, a
 * transfer's refusals and its credentials'.
 */
const pluginTexts = () => [
  ENTITIES_REQUIRED,
  ...["user_id", "wallet_id"].map(requiredText),
  EMPTY,
  ...Object.values(REQUIRES_TEXT).map((text) => text("<field>")),
  ...AMOUNT_FIELDS.flatMap((field) => [
    ...PLUGIN_AMOUNT_REFUSALS.flatMap((r) => textsOf(amountRefused(field, r))),
    ...textsOf(overlongRefused(field, "9".repeat(AMOUNT_TEXT_MAX + 1))),
  ]),
  ...messagesOf(noteField),
  ...Object.values(META_DATA_REFUSED),
  TRANSFER_REQUEST_ID_TEXT,
  ...Object.values(WALLET_NUMBER_TEXT),
  ...answerTexts(invalidWallet()),
  // A wallet's name has spaces, which a placeholder does not stand for.
  ...answerTexts(
    insufficientBalance({ sent: "<n>", name: "US Dollar", available: "<n>", held: "<n>" }),
  ),
  ...TRANSFER_REFUSALS.flatMap(([reason, amount]) =>
    answerTexts(transferRefused(reason, amount, "<amount>")),
  ),
  ...[keyRouteRefusals("<action>"), jwtRouteRefusals].flatMap((refusals) =>
    Object.values(refusals).flatMap((refusal) => answerTexts(refusal())),
  ),
  // The lists' and reads' 404s, a delete refused, a wallet id taken, a verification mail's.
  ...textsOf(Object.values(LIST_REFUSED).map((r) => (typeof r === "function" ? r("<id>") : r))),
  USER_NOT_FOUND,
  DELETE_REFUSED.message,
  DELETE_REFUSED.walletHasEntries("<wallet>"),
  DELETE_REFUSED.userHasEntries,
  DELETE_REFUSED.lastAdministrator,
  WALLET_EXISTS,
  ...Object.values(VERIFY_EMAIL_REFUSED),
];

/** Every source file as text, by path (`../src/compat/lists.ts`). */
const SOURCES = import.meta.glob<string>("../src/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** A call that answers a refusal: a text written in its arguments is one a client reads. */
const REFUSAL_CALL =
  /\b(?:fail\(\s*\w+\s*,|send\(\s*\w+\s*,\s*[45]\d\d\s*,|new ApiError\(|new MalformedRequest\(|invalidInput\(|apiError\(|validationError\(|c\.text\()/g;

/**
 * The builders whose texts the tests above take by calling them, by file and top-level name: the
 * one place a text may be written inside a refusal's call. Anywhere else it is a name they list.
 */
const BUILDERS: Record<string, string[]> = {
  "../src/http/errors.ts": ["answerOf", "permissionDenied"],
  "../src/compat/auth.ts": ["keyRouteRefusals", "jwtRouteRefusals"],
  "../src/compat/respond.ts": ["invalidWallet"],
  "../src/compat/transfers.ts": ["insufficientBalance", "transferRefused"],
};

/** A top-level declaration's name, as biome lays them out (from the line's start). */
const DECLARATION = /^(?:export )?(?:async )?(?:function\*? |const |let |class )(\w+)/gm;

/** The offset of the quote that closes the string or template opening at `start`. */
function closing(source: string, start: number): number {
  const quote = source[start];
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === quote) return i;
    else if (quote === "`" && source.startsWith("${", i))
      // An expression: its braces counted, the strings in it skipped.
      for (let depth = 0; i < source.length; i++) {
        if ("\"'`".includes(source[i]!)) i = closing(source, i);
        else if (source[i] === "{") depth++;
        else if (source[i] === "}" && --depth === 0) break;
      }
  }
  return source.length;
}

/**
 * The texts written as a string or template in the arguments of the call whose `(` is at `open`,
 * as written, by offset. A text has words with a space between, as above (a template's `${…}` left
 * out): a key (`"requestId"`) or an empty message is none.
 */
function textsInCall(source: string, open: number) {
  const texts: { at: number; written: string }[] = [];
  for (let i = open, depth = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (source.startsWith("//", i)) i = source.indexOf("\n", i);
    else if ("\"'`".includes(ch)) {
      const end = closing(source, i);
      const text = source.slice(i + 1, end).replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, "");
      if (/[a-z]{2}/i.test(text) && /\s/.test(text.trim()))
        texts.push({ at: i, written: source.slice(i, end + 1) });
      i = end;
    } else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && --depth === 0) break;
  }
  return texts;
}

/** Each text written inline in a refusal's call outside BUILDERS, as `file:line: "text"`. */
function inlineRefusalTexts(sources: Record<string, string>) {
  const found: string[] = [];
  for (const [file, source] of Object.entries(sources))
    for (const call of source.matchAll(REFUSAL_CALL)) {
      const lineStart = source.lastIndexOf("\n", call.index) + 1;
      if (/^\s*(?:\/\/|\*)/.test(source.slice(lineStart, call.index))) continue; // a comment
      const builder = [...source.slice(0, call.index).matchAll(DECLARATION)].at(-1)?.[1];
      if (builder && BUILDERS[file]?.includes(builder)) continue;
      for (const { at, written } of textsInCall(source, call.index + call[0].indexOf("("))) {
        const line = source.slice(0, at).split("\n").length;
        found.push(`${file.replace("../", "")}:${line}: ${written}`);
      }
    }
  return found;
}

describe("every refusal text is in the docs", () => {
  it("each of the service's refusals, as wallet/v1 answers it, in docs/errors.md or api.md", () => {
    const missing = Object.values(REFUSALS)
      .flat()
      .flatMap((reason) => textsOf(refusalAnswer(new Refusal(reason))?.error))
      .filter((text) => !inWalletDocs(text));
    expect([...new Set(missing)]).toEqual([]);
  });

  it("each field text of wallet/v1's routes, in docs/errors.md or api.md", () => {
    expect(fieldTexts(ROUTES).filter((text) => !inWalletDocs(text))).toEqual([]);
  });

  it("each field text of the plugin's routes, in docs/compat.md", () => {
    expect(fieldTexts(COMPAT_ROUTES).filter((text) => !inCompatDoc(text))).toEqual([]);
  });

  it("each of the plugin's own refusal texts, outside its schemas, in docs/compat.md", () => {
    expect([...new Set(pluginTexts())].filter((text) => !inCompatDoc(text))).toEqual([]);
  });

  it("each text wallet/v1 words outside the service's refusals, in docs/errors.md or api.md", () => {
    expect(WALLET_ROUTE_TEXTS.filter((text) => !inWalletDocs(text))).toEqual([]);
  });

  it("the console's own words for a refusal, in docs/console.md", () => {
    const texts = [noUserText("<user>"), FOREIGN_REQUEST, FORM_EXPIRED, unreadableForm("<reason>")];
    expect(texts.filter((text) => !quotes(consoleDoc)(text))).toEqual([]);
  });

  it("each reason a request cannot be read, in docs/errors.md or api.md", () => {
    expect(MALFORMED_TEXTS.filter((text) => !inWalletDocs(text))).toEqual([]);
  });

  it("no refusal's text is written inline in src/, outside the builders tried above", () => {
    expect(inlineRefusalTexts(SOURCES)).toEqual([]);
  });

  it("each builder allowed texts inline is declared where BUILDERS says", () => {
    const declared = (file: string) =>
      [...(SOURCES[file] ?? "").matchAll(DECLARATION)].map((m) => m[1]);
    for (const [file, names] of Object.entries(BUILDERS))
      expect(
        names.filter((name) => !declared(file).includes(name)),
        file,
      ).toEqual([]);
  });

  it("each clash of a new user's username or e-mail, in the docs of both dialects", () => {
    const texts = Object.values(CLASH);
    expect(texts.filter((text) => !inWalletDocs(text))).toEqual([]);
    expect(texts.filter((text) => !inCompatDoc(text))).toEqual([]);
  });
});

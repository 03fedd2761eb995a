// Declared inputs that wallet/v1's routes and the console's forms share: a form posts the same
// fields as the route's body, so both decode them by one schema, in the same words.
import * as v from "valibot";
import { ENDPOINT_URL_MAX } from "../events/endpoint-url";
import { EVENT_TYPES, type EventType, isEventType } from "../events/records";
import {
  isReservedWalletId,
  isWalletDecimals,
  isWalletId,
  isWalletType,
  normalizeWalletId,
  normalizeWalletType,
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
import {
  amountField,
  anyText,
  atMost,
  caseless,
  documented,
  EMPTY,
  ID_DIGITS,
  integerText,
  noteField,
  textField,
  tooLongText,
  USERNAME_MAX,
  usernameAtMost,
  WALLET_ID_SCHEMA,
} from "./fields";

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
  amount: v.optional(amountField),
  note: noteField,
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
  url: required(ENDPOINT_URL_MAX, "url"),
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

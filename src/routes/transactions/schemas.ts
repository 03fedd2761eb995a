import * as v from "valibot";
import { noteField, requestIdField, userIdField, walletIdField } from "../../http/fields";
import { EMPTY } from "../../http/validation";

export const MAX_PER_PAGE = 100;
const MAX_PAGE = 1_000_000;
// ISO 8601 date or date-time; without an offset it is read as UTC.
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

export const integerIn = (name: string, min: number, max: number) =>
  v.pipe(
    v.union([v.string(), v.number()], `${name} requires an integer`),
    v.transform(String),
    v.regex(/^[0-9]+$/, `${name} requires an integer`),
    v.transform(Number),
    v.minValue(min, `${name} must be between ${min} and ${max}`),
    v.maxValue(max, `${name} must be between ${min} and ${max}`),
  );

const isoDate = (name: string) =>
  v.pipe(
    v.string(`${name} requires an ISO 8601 date`),
    v.regex(ISO_8601, `${name} requires an ISO 8601 date`),
    // Date.parse rolls 2022-02-31 over to March; a real calendar date must read back the same.
    v.check((s) => {
      const [y, m, d] = s.slice(0, 10).split("-").map(Number) as [number, number, number];
      const day = new Date(Date.UTC(y, m - 1, d));
      return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
    }, `${name} requires an ISO 8601 date`),
    v.transform((s) =>
      Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) || s.length === 10 ? s : `${s}Z`),
    ),
    v.check((ms) => Number.isFinite(ms), `${name} requires an ISO 8601 date`),
    v.transform((ms) => Math.floor(ms / 1000)),
  );

export const TransactionListParams = v.object({
  // Required for administrators; a subscriber may omit it (its own) — see list.ts.
  user_id: v.optional(userIdField()),
  security_code: v.pipe(
    v.union([v.string(), v.number()], "security_code requires an integer"),
    v.transform(String),
    v.nonEmpty(EMPTY),
    v.regex(/^-?[0-9]{1,18}$/, "security_code requires an integer"),
  ),
  page: v.optional(integerIn("page", 1, MAX_PAGE), "1"),
  per_page: v.optional(integerIn("per_page", 1, MAX_PER_PAGE), String(MAX_PER_PAGE)),
  wallet_id: v.optional(walletIdField),
  txn_type: v.optional(
    v.pipe(
      v.string("txn_type must be CREDIT or DEBIT"),
      v.transform((s) => s.toUpperCase()),
      v.picklist(["CREDIT", "DEBIT"], "txn_type must be CREDIT or DEBIT"),
    ),
  ),
  after: v.optional(isoDate("after")),
  before: v.optional(isoDate("before")),
  order: v.optional(
    v.pipe(
      v.string("order must be asc or desc"),
      v.transform((s) => s.toLowerCase()),
      v.picklist(["asc", "desc"], "order must be asc or desc"),
    ),
    "desc",
  ),
});

export const ReverseParams = v.object({
  request_id: requestIdField,
  note: noteField,
});

import * as v from "valibot";
import type { Context } from "hono";
import { createDb, type Db } from "../db/client";
import { findUsers } from "../db/users";
import { findWalletCached, type Wallet } from "../db/wallets";
import { toMinor, type Decimal } from "../ledger/money";
import type { AppEnv } from "../env";
import { postEntry } from "../ledger/entries";
import { ok } from "./envelope";
import { invalidInput, transactionExists, userNotFound } from "./errors";
import { readParams } from "./params";
import { EntryParams } from "./fields";
import { checkFields } from "./validation";

type MoneySchema = v.ObjectSchema<{ wallet_id: v.GenericSchema<unknown, string>; amount: v.GenericSchema<unknown, Decimal> } & v.ObjectEntries, undefined>;

const MINOR_MESSAGES = {
  "too-many-decimals": (w: Wallet) => `amount has more decimal places than wallet ${w.id} allows (${w.decimals})`,
  "too-large": () => "amount is too large",
};

/**
 * Validates a money movement's fields, including the ones only the wallet can judge (does it exist,
 * does the amount fit its decimals), and reports every field error together in schema key order.
 */
export async function readMoneyInput<S extends MoneySchema>(db: Db, schema: S, params: Record<string, unknown>) {
  const { output, errors = {} } = checkFields(schema, params);
  const walletId = errors.wallet_id ? undefined : v.parse(schema.entries.wallet_id, params.wallet_id);
  const wallet = walletId === undefined ? undefined : await findWalletCached(db, walletId);
  if (walletId !== undefined && !wallet) errors.wallet_id = "wallet_id not found";
  let amountMinor = 0;
  if (wallet && !errors.amount) {
    const amount = v.parse(schema.entries.amount, params.amount);
    const minor = toMinor(amount, wallet.decimals);
    if (typeof minor === "number") amountMinor = minor;
    else errors.amount = MINOR_MESSAGES[minor](wallet);
  }
  if (!output || !wallet || Object.keys(errors).length > 0) throw invalidInput(ordered(errors, Object.keys(schema.entries)));
  return { fields: output as v.InferOutput<S>, wallet, amountMinor };
}

const ordered = (errors: Record<string, string>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => errors[k] !== undefined).map((k) => [k, errors[k]!]));

export async function requireUser(db: Db, userId: number) {
  const user = (await findUsers(db, [userId])).get(userId);
  if (!user) throw userNotFound(userId);
  return user;
}

/**
 * The whole of POST /credits and POST /debits after authorization: validate, find the user, append
 * one entry idempotently. A debit past zero fails the overdraft CHECK inside its batch, so the
 * guard holds however many debits race (answered "Insufficient Balance" by http/errors.ts).
 */
export async function postSingleEntry(c: Context<AppEnv>, txnType: "CREDIT" | "DEBIT") {
  const db = createDb(c.env.DB);
  const { fields, wallet, amountMinor } = await readMoneyInput(db, EntryParams, await readParams(c));
  const user = await requireUser(db, fields.user_id);
  const spec = { user, wallet, amountMinor, amountText: fields.amount.text, requestId: fields.request_id, note: fields.note };
  const result = await postEntry(db, { ...spec, txnType }, c.get("nowMs")());
  if (!result.created) throw transactionExists(result.existingId!);
  return ok(c, 200, "Transaction Completed", { transaction_id: result.ids[0], user_id: user.id });
}

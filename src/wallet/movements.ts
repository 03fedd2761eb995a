// Money moved: a credit or a debit, a transfer, a reversal, each as the client meant it. A verb
// checks its caller, finds the users and the wallet, converts the amount (ledger/money.ts
// amountToMinor, under the dialect's policy) and writes one ledger batch, idempotent on the
// caller's request_id; a dialect answers the result or the refusal in its own words.
import { atPrimary, type Db } from "../db/client";
import { findMovement, pairBalances, pairKey, transferHalves } from "../db/ledger";
import { findUserBy, findUsers } from "../db/users";
import { findWalletCached, type Wallet } from "../db/wallets";
import { appendEntries, type KeyUse, LedgerRefusal, type NewEntry } from "../ledger/append";
import { type EntrySpec, entry, seconds } from "../ledger/entries";
import { type AmountPolicy, amountToMinor, MAX_MINOR, numberText } from "../ledger/money";
import { type IdRef, requireAdmin, type ServiceContext } from "./context";
import { databaseUnavailable } from "./faults";
import { Refusal, verdictOf } from "./refusal";

/** A user as the client named it: by id or by login text; `as` is the text sent, for refusals. */
export type UserRef = ({ id: number } | { login: string; orLogin?: string }) & { as?: string };

/** An amount as the client sent it, and what becomes of places the wallet does not store. */
export type AmountSent = { sent: string | number; policy: AmountPolicy };

export type MoveInput = {
  user: UserRef;
  walletId: string;
  amount: AmountSent;
  requestId: string;
  note: string;
  /** The client's meta_data object as JSON text, kept with the entry. */
  metaData?: string;
};

/** A used request_id: the entry it already made, or the hold that has it. */
export const exists = ({ existingId, existingHoldId }: KeyUse) =>
  existingHoldId === undefined
    ? new Refusal({ code: "transaction_exists", existingId: existingId! })
    : new Refusal({ code: "hold_exists", holdId: existingHoldId });

/** A user reference as the client wrote it, for refusals. */
export const nameOf = (ref: UserRef) => ref.as ?? ("id" in ref ? ref.id : ref.login);

/** The users the refs name, in order, or a `user_not_found` refusal for the first missing. */
export async function requireUsers<const R extends readonly UserRef[]>(db: Db, refs: R) {
  const ids = refs.flatMap((ref) => ("id" in ref ? [ref.id] : []));
  const byId = ids.length > 0 ? await findUsers(db, ids) : new Map();
  const found: { id: number; username: string }[] = [];
  for (const ref of refs) {
    const user = "id" in ref ? byId.get(ref.id) : await findUserBy(db, ref);
    if (!user) throw new Refusal({ code: "user_not_found", userId: nameOf(ref) });
    found.push({ id: user.id, username: user.username });
  }
  return found as { [K in keyof R]: { id: number; username: string } };
}

export async function requireWallet(db: Db, walletId: string) {
  const wallet = await findWalletCached(db, walletId);
  if (!wallet) throw new Refusal({ code: "wallet_not_found", walletId });
  return wallet;
}

/**
 * The text an entry keeps of an amount as sent: a JSON number as its plain decimal (numberText, as
 * the dialects decode one), so one amount is one text however it reached the verb.
 */
export const sentText = ({ sent }: AmountSent) =>
  typeof sent === "number" ? (numberText(sent) ?? String(sent)) : sent;

/**
 * An amount as an entry or a hold keeps it: in the wallet's minor units, and the text the client
 * sent; or an `amount_refused` refusal.
 */
export function amountOf(amount: AmountSent, wallet: Wallet) {
  const minor = amountToMinor(amount.sent, wallet, amount.policy);
  if (typeof minor !== "number")
    throw new Refusal({ code: "amount_refused", refusal: minor, wallet });
  return { amountMinor: minor, amountText: sentText(amount) };
}

/**
 * What a credit, a debit or a hold names, for an administrator: its wallet and the amount in the
 * wallet's units, then its user (a refused amount is named before an unknown user, as wallet/v1's
 * validation names it before existence); with the request_id and the note as sent.
 */
export async function resolveMove(ctx: ServiceContext, input: Omit<MoveInput, "metaData">) {
  requireAdmin(ctx, "write");
  const wallet = await requireWallet(ctx.db, input.walletId);
  const amount = amountOf(input.amount, wallet);
  const [user] = await requireUsers(ctx.db, [input.user]);
  const { requestId, note } = input;
  return { user, wallet, ...amount, requestId, note };
}

/**
 * One CREDIT or DEBIT, idempotent on (user, request_id): a credit through the request's ledger
 * (over D1, group-committed with the credits beside it); a debit, which its balance may refuse, alone.
 */
async function postSingle(ctx: ServiceContext, txnType: "CREDIT" | "DEBIT", input: MoveInput) {
  const move = await resolveMove(ctx, input);
  const e = entry({ ...move, txnType, metaData: input.metaData }, ctx.stamp());
  const result = await (txnType === "CREDIT"
    ? ctx.ledger.postCredit(e)
    : appendEntries(ctx.db, [e]));
  if (!result.created) throw exists(result);
  return { transactionId: result.ids[0]!, userId: move.user.id };
}

/** Credits a user's wallet. */
export const credit = (ctx: ServiceContext, input: MoveInput) => postSingle(ctx, "CREDIT", input);

/** Debits a user's wallet; a debit past the balance fails the overdraft CHECK in its batch. */
export const debit = (ctx: ServiceContext, input: MoveInput) => postSingle(ctx, "DEBIT", input);

type TransferInput = Omit<MoveInput, "user" | "metaData"> & {
  from: UserRef;
  to: UserRef;
  /**
   * The request_id is the dialect's, drawn afresh because the client sent none: no retry can find
   * this transfer, so an outcome D1 lost is learnt before answering (`madeDespite`).
   */
  keyDrawn?: boolean;
  /** Each leg's own note, where a dialect writes them apart (the plugin's "TRANSFER to …"). */
  notes?: (
    from: { username: string },
    to: { username: string },
  ) => { debit: string; credit: string };
};

/** The id no user has: a dialect's name for nobody, which every look-up answers as not found. */
export const NOBODY = 0;

/**
 * Both ends of a transfer named by one id: invalid input, refused before any look-up (validation
 * comes before existence). Ends named otherwise are compared once found; two that name nobody are
 * two unknown users, not one.
 */
export const namesOneUser = (from: UserRef, to: UserRef) =>
  "id" in from && "id" in to && from.id === to.id && from.id !== NOBODY;

/**
 * What a transfer would move, read as `transfer` reads it and refused as it refuses before writing:
 * both users as their refs find them, the wallet and the amount (amountOf). Writes nothing:
 * the console shows it to the operator before the transfer itself.
 */
export async function resolveTransfer(
  ctx: ServiceContext,
  input: Pick<TransferInput, "from" | "to" | "walletId" | "amount">,
) {
  requireAdmin(ctx, "write");
  if (namesOneUser(input.from, input.to)) throw new Refusal({ code: "same_user" });
  const [from, to] = await requireUsers(ctx.db, [input.from, input.to]);
  if (from.id === to.id) throw new Refusal({ code: "same_user" });
  const wallet = await requireWallet(ctx.db, input.walletId);
  return { from, to, wallet, amount: amountOf(input.amount, wallet) };
}

/** A transfer: the sender's DEBIT (keyed by the request_id) and the receiver's CREDIT, or neither. */
export async function transfer(ctx: ServiceContext, input: TransferInput) {
  const { from, to, wallet, amount } = await resolveTransfer(ctx, input);
  const notes = input.notes?.(from, to) ?? { debit: input.note, credit: input.note };
  const common = { wallet, ...amount, requestId: input.requestId, transferId: crypto.randomUUID() };
  const stamp = ctx.stamp();
  const result = await appendEntries(ctx.db, [
    entry({ ...common, user: from, txnType: "DEBIT", note: notes.debit }, stamp),
    entry({ ...common, user: to, txnType: "CREDIT", note: notes.credit, keyed: false }, stamp),
  ]).catch((err: unknown) => {
    if (verdictOf(err) === "insufficient-balance") {
      const refused = { userId: from.id, walletId: wallet.id, amountMinor: amount.amountMinor };
      throw new Refusal({ code: "insufficient_balance", refused });
    }
    if (input.keyDrawn && databaseUnavailable(err))
      return madeDespite(ctx.db, common.transferId, err);
    throw err;
  });
  if (!result.created) throw exists(result);
  const [debitId, creditId] = result.ids as [number, number];
  return { debitId, creditId, fromUserId: from.id, toUserId: to.id, toUsername: to.username };
}

/**
 * A transfer whose write D1 lost (it may have committed), read back at the primary by its transfer
 * id, which no other request has: its halves' ids if it was made; else, or should that read fail
 * too, the error.
 */
async function madeDespite(db: Db, transferId: string, lost: unknown) {
  const primary = atPrimary(db);
  const halves = await transferHalves(primary.db, transferId).catch(() => []);
  primary.done();
  const debit = halves.find((h) => h.txnType === "DEBIT");
  const credit = halves.find((h) => h.txnType === "CREDIT");
  if (!debit || !credit) throw lost;
  return { created: true as const, ids: [debit.id, credit.id] };
}

/** The wallets of entries already written, by id: each is undone in its own wallet's units. */
export async function walletsOf(db: Db, entries: { walletId: string }[]) {
  const wallets = new Map<string, Wallet>();
  for (const { walletId } of entries)
    if (!wallets.has(walletId))
      wallets.set(walletId, (await findWalletCached(db, walletId)) as Wallet);
  return wallets;
}

/**
 * The entry that undoes `e`, never an edit of it: the other side, the same amount (as it was
 * sent), naming `e` by reverses_id; `note` empty says which it reverses.
 */
export const opposite = (
  e: { id: number; txnType: "CREDIT" | "DEBIT"; amountMinor: number; amountText: string },
  user: EntrySpec["user"],
  wallet: Wallet,
  note: string,
) => ({
  user,
  wallet,
  txnType: e.txnType === "CREDIT" ? ("DEBIT" as const) : ("CREDIT" as const),
  amountMinor: e.amountMinor,
  amountText: e.amountText,
  note: note || `Reversal of transaction ${e.id}`,
  reversesId: e.id,
});

/** An entry as its undoing is ordered: its chain (a user's wallet), its side and its amount. */
type Undone = Pick<NewEntry, "userId" | "walletId" | "txnType" | "amountMinor">;

/**
 * The order entries are undone in, in one batch: as given, but in the places each chain holds,
 * raised before it is lowered (a DEBIT's undoing before a CREDIT's), so that no balance passes
 * below both where it stands and where it ends. Each entry is judged against the balance the one
 * before left: in another order, money that went out and came back (a site's transfer from a user
 * to itself, a batch's transfer there and back) would be refused `Insufficient Balance` by an
 * undoing that ends within the rules. With the chains' balances now and what their holds reserve
 * (`balances`, by pairKey), a raise that would pass the largest balance waits for a lowering first,
 * as near that limit the same money would pass it on the way up.
 */
export function undoOrder<T>(
  items: T[],
  entryOf: (item: T) => Undone,
  balances?: Map<string, { balanceMinor: number; heldMinor: number }>,
): T[] {
  const keys = items.map((item) => pairKey(entryOf(item)));
  const chains = new Map<string, T[]>();
  items.forEach((item, i) => {
    const chain = chains.get(keys[i]!);
    if (chain) chain.push(item);
    else chains.set(keys[i]!, [item]);
  });
  const raises = (item: T) => entryOf(item).txnType === "DEBIT";
  const amount = (item: T) => entryOf(item).amountMinor;
  for (const [key, chain] of chains) {
    // Its balance unknown, every raise comes first.
    const known = balances?.get(key);
    let balance = balances ? (known?.balanceMinor ?? 0) : Number.NEGATIVE_INFINITY;
    // A lowering may not take the balance below what the holds reserve (the ledger's guard).
    const floor = known?.heldMinor ?? 0;
    const left = [...chain];
    chain.length = 0;
    while (left.length > 0) {
      const fits = left.findIndex((item) => raises(item) && balance + amount(item) <= MAX_MINOR);
      const lowers = left.findIndex((item) => !raises(item));
      const pick =
        fits !== -1 ? fits : lowers !== -1 ? (roomFor(left, balance, floor) ?? lowers) : 0;
      const [next] = left.splice(pick, 1);
      balance += (raises(next!) ? 1 : -1) * entryOf(next!).amountMinor;
      chain.push(next!);
    }
  }
  // Each chain fills the places it held among the items.
  return keys.map((key) => chains.get(key)!.shift()!);

  /**
   * With raises left and none fitting under the largest balance: the lowering that makes room
   * while the balance stays at or above what holds reserve of it (`floor`), the least that lets a
   * raise fit (else the least), so that a small lowering first does not leave a large one to take
   * the balance below that where another order keeps it there. Undefined when every lowering
   * would: the first is written, and refused.
   */
  function roomFor(left: T[], balance: number, floor: number): number | undefined {
    const smallest = Math.min(...left.filter(raises).map(amount));
    if (!Number.isFinite(smallest)) return undefined; // no raise left: lowered in the order given
    let best: { i: number; makesRoom: boolean; minor: number } | undefined;
    left.forEach((item, i) => {
      if (raises(item) || balance - amount(item) < floor) return;
      const makesRoom = balance - amount(item) + smallest <= MAX_MINOR;
      const better =
        !best ||
        (makesRoom && !best.makesRoom) ||
        (makesRoom === best.makesRoom && amount(item) < best.minor);
      if (better) best = { i, makesRoom, minor: amount(item) };
    });
    return best?.i;
  }
}

/**
 * Writes an undoing in undoOrder's order and, should that take a balance past the largest one (the
 * ledger refusing it wrote nothing), once more ordered by the chains' balances now and the holds
 * that count at `atS`, the undoing's own second.
 */
export async function writeUndoing<T, R>(
  db: Db,
  items: T[],
  entryOf: (item: T) => Undone,
  write: (ordered: T[]) => Promise<R>,
  atS: number,
): Promise<{ ordered: T[]; written: R }> {
  const attempt = async (balances?: Awaited<ReturnType<typeof pairBalances>>) => {
    const ordered = undoOrder(items, entryOf, balances);
    return { ordered, written: await write(ordered) };
  };
  return attempt().catch(async (err: unknown) => {
    if (verdictOf(err) !== "balance-limit") throw err;
    return attempt(await pairBalances(db, items.map(entryOf), atS));
  });
}

/** The reasons `notReversible` gives, as a refusal's `id` text says them. */
export const NOT_REVERSIBLE = {
  reversal: "a reversal cannot be reversed",
  zero: "a transaction of zero cannot be reversed",
} as const;

/**
 * Why a movement (an entry, or both halves of a transfer) can never be reversed; undefined if it
 * can be, unless it was already (which only the ledger can say, atomically).
 */
export function notReversible(entries: { reversesId: number | null; amountMinor: number }[]) {
  if (entries.some((e) => e.reversesId !== null)) return NOT_REVERSIBLE.reversal;
  // Only an entry imported from WordPress can be zero, either half of a transfer; its opposite would
  // be a zero movement, which the API never writes (and the database refuses for its own entries).
  if (entries.some((e) => e.amountMinor === 0)) return NOT_REVERSIBLE.zero;
  return undefined;
}

/**
 * Reverses an entry by appending its opposite, linked by reverses_id (never editing it). A transfer
 * is reversed as a whole. A second reversal writes nothing (its first entry's guard finds the first
 * one: ledger/append.ts insertRow); a reversal that would overdraw (leave a balance below zero and
 * lower) fails the overdraft CHECK like any debit.
 * `ref` is the transaction as the caller named it, for the refusals' texts.
 */
export async function reverse(
  ctx: ServiceContext,
  input: IdRef & {
    requestId: string;
    note: string;
    /** The user the caller names it of (the console's page of that user): another's is not found. */
    userId?: number;
  },
) {
  const { id, ref, requestId, note } = input;
  requireAdmin(ctx, "write");
  const movement = id === null ? [] : await findMovement(ctx.db, id);
  const target = movement.find((m) => m.entry.id === id);
  if (!target || (input.userId !== undefined && target.entry.userId !== input.userId))
    throw new Refusal({ code: "transaction_not_found", ref });
  const entries = movement.map((m) => m.entry);
  const why = notReversible(entries);
  if (why) throw new Refusal({ code: "not_reversible", why });
  // Each half in its own wallet and units: a site's imported transfer may link two wallets.
  const wallets = await walletsOf(ctx.db, entries);
  const stamp = ctx.stamp();
  const transferId = movement.length > 1 ? crypto.randomUUID() : undefined;
  const write = (ordered: typeof movement) => {
    const [first, ...rest] = ordered.map(({ entry: e, username }, i) =>
      entry(
        {
          ...opposite(e, { id: e.userId, username }, wallets.get(e.walletId)!, note),
          requestId,
          keyed: i === 0,
          transferId,
        },
        stamp,
      ),
    );
    return appendEntries(ctx.db, [first!, ...rest]);
  };
  // The named entry's user owns the request_id; its chain is undone first so a replay finds it.
  const items = [target, ...movement.filter((m) => m !== target)];
  const { ordered, written: result } = await writeUndoing(
    ctx.db,
    items,
    (m) => m.entry,
    write,
    seconds(stamp.nowMs),
  ).catch((err: unknown) => {
    // A later half was reversed on its own already (an imported transfer half reversed alone; the
    // ledger says so though a balance check fired first). A reversal of the whole movement, however
    // concurrent, is found by the first entry's guard instead and answered below.
    throw err instanceof LedgerRefusal && err.reason === "already-reversed"
      ? new Refusal({ code: "already_reversed", ref })
      : err;
  });
  if (!result.created && (result.existingId ?? result.existingHoldId) !== undefined)
    throw exists(result);
  if (!result.created) throw new Refusal({ code: "already_reversed", ref });
  return { transactionIds: result.ids, reversedIds: ordered.map((m) => m.entry.id) };
}

// A wallet at a glance for one user: what it holds, what holds reserve of it, what is left to
// spend, how many entries it has and the newest one.
import { refusedPositions, walletPosition } from "../db/holds";
import { newestEntries } from "../db/ledger";
import { findWalletCached } from "../db/wallets";
import { seconds } from "../ledger/entries";
import { caller, requireAdmin, requireReader, type ServiceContext } from "./context";
import { userIdOf } from "./directory";
import { withHolds } from "./holds";
import { nameOf, type UserRef } from "./movements";
import { Refusal, type RefusedMove } from "./refusal";

/** `user` undefined: the caller's own. */
export async function walletSummary(
  ctx: ServiceContext,
  input: { user: UserRef | undefined; walletId: string },
) {
  const { user, walletId } = input;
  const me = caller(ctx);
  const userId = user === undefined ? me.userId : ((await userIdOf(ctx, user)) ?? undefined);
  // Nobody is refused to a subscriber as anyone else is: its answer tells no username exists.
  requireReader(ctx, userId ?? Number.NaN);
  const nowS = seconds(ctx.nowMs());
  const found =
    userId === undefined ? undefined : await walletPosition(ctx.db, userId, walletId, nowS);
  if (found && !found.wallet) throw new Refusal({ code: "wallet_not_found", walletId });
  if (!found?.userExists || userId === undefined)
    throw new Refusal({ code: "user_not_found", userId: user ? nameOf(user) : me.userId });
  return {
    userId,
    wallet: found.wallet!,
    ...withHolds(found.balance),
    entryCount: found.balance?.entryCount ?? 0,
    last: found.last ?? null,
  };
}

/**
 * What a user may move out of a wallet (its balance less what holds reserve) and what holds
 * reserve, for a dialect whose refusal of a movement names them (the plugin's transfers). Asked by
 * a caller that may move money, after its movement was refused: money may have moved since. As they
 * stand when that state refuses the amount too: when nothing moved since, the state it was refused
 * in. Else as the refused movement was judged, at the request's stamp (db/holds.ts
 * refusedPositions): a hold that expired or was voided since is still named as the reserve that
 * refused it. Should money have arrived since so that the amount is available even so, the wallet's
 * newest entries are undone one at a time (a hold captured by a DEBIT undone reserving again) and
 * the latest state that had less is answered (the movement was refused in that state or an earlier
 * one).
 */
export async function spendable(ctx: ServiceContext, refused: RefusedMove) {
  const { userId, walletId, amountMinor: amount } = refused;
  requireAdmin(ctx, "write");
  const atS = seconds(ctx.stamp().nowMs);
  const pair = { userId, walletId };
  const [wallet, [found]] = await Promise.all([
    findWalletCached(ctx.db, walletId),
    refusedPositions(ctx.db, [pair], atS),
  ]);
  if (!wallet || !found) return undefined;
  const now = withHolds(found.now);
  if (now.availableMinor < amount) return { wallet, ...now };
  const judged = withHolds(found.judged);
  if (judged.availableMinor < amount) return { wallet, ...judged };
  for (const e of await newestEntries(ctx.db, [pair], atS)) {
    const then = withHolds(found.at(e.balanceBeforeMinor, e.heldMinor));
    if (then.availableMinor < amount) return { wallet, ...then };
  }
  return { wallet, ...judged };
}

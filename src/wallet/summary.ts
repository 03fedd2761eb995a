// A wallet at a glance for one user: what it holds, what holds reserve of it, what is left to
// spend, how many entries it has and the newest one.
import { walletPosition } from "../db/holds";
import { pairKey } from "../db/ledger";
import { findWalletCached } from "../db/wallets";
import { seconds } from "../ledger/entries";
import { caller, requireAdmin, type ServiceContext } from "./context";
import { readableUserId } from "./directory";
import { refusalStates, withHolds } from "./holds";
import { nameOf, type UserRef } from "./movements";
import { Refusal, type RefusedMove } from "./refusal";

/** `user` undefined: the caller's own. */
export async function walletSummary(
  ctx: ServiceContext,
  input: { user: UserRef | undefined; walletId: string },
) {
  const { walletId } = input;
  const user = input.user ?? { id: caller(ctx).userId };
  const userId = await readableUserId(ctx, user);
  // An unknown wallet is named before an unknown user, whether the user was named by id or by a
  // login text that names nobody.
  const found =
    userId === null
      ? undefined
      : await walletPosition(ctx.db, userId, walletId, seconds(ctx.nowMs()));
  const wallet = found ? found.wallet : await findWalletCached(ctx.db, walletId);
  if (!wallet) throw new Refusal({ code: "wallet_not_found", walletId });
  if (!found?.userExists || userId === null)
    throw new Refusal({ code: "user_not_found", userId: nameOf(user) });
  return {
    userId,
    wallet,
    ...withHolds(found.balance),
    entryCount: found.balance?.entryCount ?? 0,
    last: found.last ?? null,
  };
}

/**
 * What a user may move out of a wallet (its balance less what holds reserve) and what holds
 * reserve, for a dialect whose refusal of a movement names them (the plugin's transfers). Asked by
 * a caller that may move money, after its movement was refused: money may have moved since. In the
 * latest state the movement may have been refused in, at the request's stamp, that had less than
 * its amount (holds.ts refusalStates: a hold that expired or was voided since is still named as the
 * reserve that refused it); should none have had less, as the movement was judged.
 */
export async function spendable(ctx: ServiceContext, refused: RefusedMove) {
  const { userId, walletId, amountMinor: amount } = refused;
  requireAdmin(ctx, "write");
  const atS = seconds(ctx.stamp().nowMs);
  const wallet = await findWalletCached(ctx.db, walletId);
  if (!wallet) return undefined;
  const pair = { userId, walletId };
  const states: ReturnType<typeof withHolds>[] = [];
  for await (const state of refusalStates(ctx.db, [pair], atS)) {
    const position = withHolds(state.get(pairKey(pair)));
    if (position.availableMinor < amount) return { wallet, ...position };
    states.push(position);
  }
  // None had less: as the movement was judged, the second state.
  return { wallet, ...states[1]! };
}

// A wallet at a glance for one user: what it holds, what holds reserve of it, what is left to
// spend, how many entries it has and the newest one.
import { walletPosition } from "../db/holds";
import { caller, requireAdmin, requireReader, type ServiceContext, seconds } from "./context";
import { userIdOf } from "./directory";
import { withHolds } from "./holds";
import { nameOf, type UserRef } from "./movements";
import { Refusal } from "./refusal";

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
 * What a user may move out of a wallet (its balance less what holds reserve) and what holds reserve,
 * for a dialect whose refusal of a movement names them (the plugin's transfers). Asked by a caller
 * that may move money, after its movement was refused: money may have moved since. The holds are
 * counted at `atMs` (default: now), the instant the refused movement was judged at, so that a hold
 * which stopped counting since is still named as the reserve that refused it.
 */
export async function spendable(
  ctx: ServiceContext,
  userId: number,
  walletId: string,
  atMs = ctx.nowMs(),
) {
  requireAdmin(ctx, "write");
  const found = await walletPosition(ctx.db, userId, walletId, seconds(atMs));
  if (!found.wallet) return undefined;
  return {
    wallet: found.wallet,
    ...withHolds(found.balance),
  };
}

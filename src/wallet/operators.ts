// What an operator reads that no route serves: the site at a glance, users found by a text, a
// user's entries with their balances after, a balance's history for a chart, the dev mail outbox.
// Administrators only, as every console screen.
import { reversedAmong } from "../db/batches";
import { balanceSeries, overview, searchUsers } from "../db/console";
import { listEntries } from "../db/ledger";
import { listOutbox, OUTBOX_KEEP } from "../db/mail";
import { findUsers } from "../db/users";
import { seconds } from "../ledger/entries";
import { requireAdmin, type ServiceContext } from "./context";

export { OUTBOX_KEEP };

/** Counts, money held per wallet and recent activity over the last `days`. */
export function siteOverview(ctx: ServiceContext, days: number) {
  requireAdmin(ctx, "read");
  return overview(ctx.db, seconds(ctx.nowMs()), days);
}

/**
 * Users whose username or e-mail holds `text`, a page of them, and how many. White space around it
 * is left out: neither holds any, and a pasted address often brings some. Digits also name the user
 * of that id (leading zeros and all, as a transfer's recipient is read), listed first: a transfer
 * names its recipient by id, and an operator checks it here. Any other text searches as before.
 */
export function findUsersByText(
  ctx: ServiceContext,
  { text, offset, limit }: { text: string; offset: number; limit: number },
) {
  requireAdmin(ctx, "read");
  const search = text.trim();
  const id = /^[0-9]+$/.test(search) ? Number(search) : 0;
  return searchUsers(ctx.db, search, offset, limit, id > 0 && Number.isSafeInteger(id) ? id : null);
}

/**
 * A user (undefined: none), a page of its entries newest first (with what the API's records leave
 * out: the balance after each, the request id), which of them were reversed, and each wallet's
 * balance over its last `points`.
 */
export async function userLedger(
  ctx: ServiceContext,
  {
    userId,
    offset,
    limit,
    points,
  }: { userId: number; offset: number; limit: number; points: number },
) {
  requireAdmin(ctx, "read");
  const [users, entries, series] = await Promise.all([
    findUsers(ctx.db, [userId]),
    listEntries(ctx.db, { userId }, { offset, limit, order: "desc" }),
    balanceSeries(ctx.db, userId, points),
  ]);
  const reversed = await reversedAmong(
    ctx.db,
    entries.rows.map((r) => r.entry.id),
  );
  return { user: users.get(userId), entries, reversed, series };
}

/** Which of the entries `ids` have been reversed. */
export function reversedEntries(ctx: ServiceContext, ids: number[]) {
  requireAdmin(ctx, "read");
  return reversedAmong(ctx.db, ids);
}

/** The newest mails the dev outbox kept. */
export function mailOutbox(ctx: ServiceContext) {
  requireAdmin(ctx, "read");
  return listOutbox(ctx.db);
}

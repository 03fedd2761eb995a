// Entries dated after the import's run. An entry joins its chain's balance timeline at its date, or
// at the chain's latest point when that is later (drizzle/0010, docs/ledger.md), so a post a site
// dated 2096 (an edited date, a clock gone wrong) puts every later entry of its chain there, the
// service's own included: statements and balances at a time leave them out until then, while the
// balance itself is whole. The site's dates are its record and are kept as they are; each such
// chain is named in a warning, before anything is written. An entry once written keeps its date
// (a later run finds it there whatever the dump says), so the database's are named too.
import { mysqlDate } from "../../../src/ledger/post-format";
import type { PlanContext } from "./context";
import type { UserPlan } from "./users";

type Dated = { count: number; latestS: number; latestId: number };

export class FutureDates {
  /** Pair key → the entries this run writes dated after it. */
  private readonly written = new Map<string, Dated>();

  constructor(private readonly ctx: PlanContext) {}

  /** An entry this run writes (or, refused or dry, would write). */
  note(key: string, id: number, createdAtS: number) {
    if (createdAtS * 1000 <= this.ctx.nowMs) return;
    const d = this.written.get(key);
    if (!d) return void this.written.set(key, { count: 1, latestS: createdAtS, latestId: id });
    d.count++;
    if (createdAtS > d.latestS) [d.latestS, d.latestId] = [createdAtS, id];
  }

  /** One warning per chain, by user and wallet: this run's entries, then the database's. */
  warn({ users }: UserPlan) {
    const { target, nowMs, warnFirst } = this.ctx;
    const earlier = new Map<string, number>();
    for (const [key, pair] of target.pairs)
      if (pair.importedLatestS !== null && pair.importedLatestS * 1000 > nowMs)
        earlier.set(key, pair.importedLatestS);
    const keys = [...new Set([...this.written.keys(), ...earlier.keys()])].map((key) => {
      const [userId, walletId] = key.split("\t") as [string, string];
      return { key, userId: Number(userId), walletId };
    });
    keys.sort((a, b) => a.userId - b.userId || (a.walletId < b.walletId ? -1 : 1));
    // Listed first (each put before those before it, so in reverse): many other warnings cannot hide them.
    for (const { key, userId, walletId } of keys.reverse()) {
      const d = this.written.get(key);
      const there = earlier.get(key);
      const what = [
        d &&
          `${d.count} ${d.count === 1 ? "entry of the dump (post" : "entries of the dump (the latest, post"} ${d.latestId})`,
        there !== undefined && "entries an earlier run imported",
      ].filter(Boolean);
      const latestS = Math.max(d?.latestS ?? 0, there ?? 0);
      const username = users.get(userId)?.username ?? target.users.get(userId)?.username;
      warnFirst(
        `user ${userId} (${username}) wallet ${walletId}: ${what.join(" and ")} dated after this import's run, the latest ${mysqlDate(latestS, "UTC")} UTC: until then, the statements and balances at a time of this user's wallet leave out its entries from the first of those on, the service's later ones included (docs/migrating.md, entries dated after the import)`,
      );
    }
  }
}

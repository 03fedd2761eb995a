import { randomBase64Url } from "../auth/base64";
import type { Wallet } from "../db/wallets";
import type { NewEntry } from "./append";
import { postTitle, slugify } from "./post-format";

/** An entry as a verb names it: who and which wallet, and the entry's own fields. */
export type EntrySpec = Omit<
  NewEntry,
  "userId" | "walletId" | "keyed" | "title" | "slugBase" | "guidSite" | "createdAtS" | "attemptId"
> & { user: { id: number; username: string }; wallet: Wallet; keyed?: boolean };

/**
 * When an entry is written, and the site its guid is fixed to: null builds the guid from SITE_URL
 * when it is read (http/site.ts entryStamp says which).
 */
export type EntryStamp = { nowMs: number; guidSite: string | null };

/** Whole seconds of a clock reading in milliseconds, as the ledger dates entries and holds. */
export const seconds = (nowMs: number) => Math.floor(nowMs / 1000);

/** An entry as the plugin's post would read: its title and slug come from who, what and when. */
export function entry(
  { user, wallet, keyed = true, ...fields }: EntrySpec,
  { nowMs, guidSite }: EntryStamp,
): NewEntry {
  const createdAtS = seconds(nowMs);
  const { txnType, amountMinor } = fields;
  const title = postTitle({ username: user.username, txnType, amountMinor, wallet, createdAtS });
  return {
    ...fields,
    userId: user.id,
    walletId: wallet.id,
    keyed,
    title,
    slugBase: slugify(title),
    guidSite,
    createdAtS,
    attemptId: randomBase64Url(16),
  };
}

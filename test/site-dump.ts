// A small Rimplenet 1.1.31 site as mysqldump writes it, built in the test: wallets whose amounts
// carry more places than the wallet shows, so the import (scripts/import) makes wallets that store
// extra places, exactly as it does for a live site. test/fixtures/make-wordpress-dump.ts writes the
// large fixtures the same way; this one takes its wallets and credits as arguments.
import {
  DUMP_FOOTER,
  DUMP_HEADER,
  type DumpCell,
  writeTable,
} from "../scripts/import/mysqldump-writer";

export type SiteWallet = { id: string; decimals: number };
/**
 * A transaction the site recorded (post 100 + its index): its user, wallet and amount text as the
 * plugin stored it; a credit unless `type` says otherwise, `alt` the post of its transfer's other half.
 */
export type SiteCredit = {
  user: number;
  wallet: string;
  amount: string;
  type?: "CREDIT" | "DEBIT";
  alt?: number;
  requestId?: string;
  /** More post meta rows after the plugin's own, in order (a key may repeat). */
  meta?: [key: string, value: string | null][];
  /** Post meta rows before the plugin's own (no plugin version writes these first). */
  metaFirst?: [key: string, value: string][];
  /** Its post_date and post_date_gmt (the site in UTC); 2023-01-01 09:00:00 otherwise. */
  date?: string;
  /** Its post_status; publish otherwise. */
  status?: string;
  /** More terms of the plugin's taxonomy on it (a withdrawal's WITHDRAWAL), after its type's. */
  terms?: string[];
};

/** More of the site: posts of other types with meta of their own, and the posts table first. */
export type SiteExtras = {
  otherPosts?: { id: number; type: string; meta: [string, string][] }[];
  /** wp_posts before wp_postmeta, as a dump of the tables named in that order writes them. */
  postsFirst?: boolean;
};

const NS = "rimplenet";
const POST_TYPE = `${NS}transaction`;
const TAXONOMY = `${NS}transaction_type`;
const BASE_TERMS = { CREDIT: 1, DEBIT: 2, "RIMPLENET WALLETS": 3 } as const;
const CAPS = {
  administrator: 'a:1:{s:13:"administrator";b:1;}',
  subscriber: 'a:1:{s:10:"subscriber";b:1;}',
};

/**
 * The site: user 1 `siteadmin` (an administrator), users 2.. subscribers `memberN`, each with the
 * e-mail `<that name>@site.example`, one wallet post per wallet, one credit post per credit.
 * `logins` gives a user (by id) another login, its e-mail unchanged; `balances` a user's stored
 * withdrawable balance by wallet (none stored otherwise). Import it with
 * `{ prefix: "wp_", namespace: "rimplenet" }`.
 */
export function siteDump(
  wallets: SiteWallet[],
  credits: SiteCredit[],
  subscribers = 2,
  logins: Record<number, string> = {},
  balances: Record<number, Record<string, string>> = {},
  { otherPosts = [], postsFirst = false }: SiteExtras = {},
) {
  // The credits' other terms follow the plugin's own, so that a site without them is as before.
  const TERMS: Record<string, number> = { ...BASE_TERMS };
  for (const name of credits.flatMap((c) => c.terms ?? []))
    TERMS[name] ??= Object.keys(TERMS).length + 1;
  const posts: DumpCell[][] = [];
  const postmeta: DumpCell[][] = [];
  const rels: DumpCell[][] = [];
  const meta = (postId: number, key: string, value: string | null) =>
    postmeta.push([postmeta.length + 1, postId, key, value]);
  const date = "2023-01-01 09:00:00";
  const post = (
    id: number,
    author: number,
    title: string,
    content = "",
    type = POST_TYPE,
    at = date,
    status = "publish",
  ) =>
    posts.push([
      id,
      author,
      at,
      at,
      content,
      title,
      "",
      status,
      "closed",
      "closed",
      "",
      `post-${id}`,
      "",
      "",
      at,
      at,
      "",
      0,
      `https://site.example/?p=${id}`,
      0,
      type,
      "",
      0,
    ]);
  wallets.forEach((w, i) => {
    const id = 10 + i;
    post(id, 1, `Wallet ${w.id}`);
    rels.push([id, TERMS["RIMPLENET WALLETS"]!, 0]);
    const fields = {
      wallet_id: w.id.toUpperCase(),
      wallet_name: `Wallet ${w.id}`,
      wallet_symbol: "$",
      wallet_decimal: String(w.decimals),
      wallet_symbol_position: "left",
      wallet_type: "fiat",
      wallet_note: "",
    };
    for (const [k, v] of Object.entries(fields)) meta(id, `${NS}_${k}`, v);
  });
  credits.forEach((c, i) => {
    const id = 100 + i;
    const type = c.type ?? "CREDIT";
    post(id, c.user, `${type} ${c.amount}`, `Amount:${c.amount}`, POST_TYPE, c.date, c.status);
    for (const term of [type, ...(c.terms ?? [])]) rels.push([id, TERMS[term]!, 0]);
    const requestId = c.requestId ?? `site_${id}`;
    for (const [k, v] of c.metaFirst ?? []) meta(id, k, v);
    for (const [k, v] of Object.entries({
      amount: c.amount,
      currency: c.wallet,
      txn_type: type,
      request_id: requestId,
      txn_request_id: `${c.user}_${requestId}`,
      ...(c.alt === undefined ? {} : { alt_transfer_id: String(c.alt) }),
    }))
      meta(id, k, v);
    for (const [k, v] of c.meta ?? []) meta(id, k, v);
  });
  for (const o of otherPosts) {
    post(o.id, 1, `A ${o.type}`, "", o.type);
    for (const [k, v] of o.meta) meta(o.id, k, v);
  }

  const users: DumpCell[][] = [];
  const usermeta: DumpCell[][] = [];
  for (let id = 1; id <= subscribers + 1; id++) {
    const name = id === 1 ? "siteadmin" : `member${id}`;
    const login = logins[id] ?? name;
    users.push([id, login, "", name, `${name}@site.example`, "", date, "", 0, login]);
    const caps = id === 1 ? CAPS.administrator : CAPS.subscriber;
    usermeta.push([usermeta.length + 1, id, "wp_capabilities", caps]);
    for (const [wallet, balance] of Object.entries(balances[id] ?? {}))
      usermeta.push([usermeta.length + 1, id, `user_withdrawable_bal_${wallet}`, balance]);
  }

  let out = DUMP_HEADER;
  const write = (text: string) => {
    out += text;
  };
  if (postsFirst) writeTable(write, "wp_", "posts", posts);
  writeTable(write, "wp_", "postmeta", postmeta);
  if (!postsFirst) writeTable(write, "wp_", "posts", posts);
  writeTable(write, "wp_", "term_relationships", rels);
  writeTable(
    write,
    "wp_",
    "term_taxonomy",
    Object.values(TERMS).map((id) => [id, id, TAXONOMY, "", 0, 1]),
  );
  writeTable(
    write,
    "wp_",
    "terms",
    Object.entries(TERMS).map(([name, id]) => [id, name, name.toLowerCase(), 0]),
  );
  writeTable(write, "wp_", "usermeta", usermeta);
  writeTable(write, "wp_", "users", users);
  return out + DUMP_FOOTER;
}

export const SITE_OPTIONS = { prefix: "wp_", namespace: NS } as const;

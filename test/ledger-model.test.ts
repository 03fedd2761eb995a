// A model-based property test of the money verbs, called as the service (no HTTP): random sequences
// of credits, debits, transfers, holds (placed, captured whole or in part, voided, run out as the
// clock moves, back too), reversals of entries, batches (balanced or not) and their reversals, with
// request ids drawn from a small pool (so replays and reused ids are common), steps repeated, sent
// twice at once or two different ones at once (their answers must be those of one order or the
// other), and amounts of every kind (more places than a wallet shows, zero, too large, the
// largest), over three users and three wallets: two places, none, and one that stores a place more
// than it shows (as the WordPress import makes it), with an imported history that ends below zero,
// an entry of zero and imported transfers. A plain model in exact integers runs beside it, and after
// EVERY step: the verb's answer is the model's (written, or refused for the model's reason); a
// refusal changed no row of any table; the rows written are the model's entries, holds, batches and
// events, in order; each balance is the sum of its entries and its timeline's last point; available
// = balance − counting holds, never below zero unless the balance is. Seeded: a failure prints the
// seed, and the run's steps with the service's answers up to the one the model disagrees with.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Principal } from "../src/auth/principal";
import { MAX_MINOR } from "../src/ledger/money";
import { requestKey } from "../src/ledger/request-key";
import { reverseBatch } from "../src/wallet/batch-reversal";
import { type BatchOperation, legRequestId, postBatch } from "../src/wallet/batches";
import type { ServiceContext } from "../src/wallet/context";
import { availableBalances, captureHold, placeHold, voidHold } from "../src/wallet/holds";
import { credit, debit, reverse, transfer } from "../src/wallet/movements";
import { type RefusalReason, refusalOf } from "../src/wallet/refusal";
import {
  CLEAN,
  importedEntry,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  storingMore,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";
import { serviceAs } from "./service-helpers";

const SEED = 20_261_201;
const RUNS = 40;
const MAX_STEPS = 30;
/** Outcomes the seeded runs must meet, so that each is checked (stable: the seed is fixed). */
const MUST_REACH = [
  ...["ok", "transaction_exists", "hold_exists", "balance_limit"].map((o) => `credit ${o}`),
  ...["too-many-decimals", "too-large", "not-positive"].map((o) => `credit amount_refused/${o}`),
  ...["ok", "insufficient_balance", "same_user"].map((o) => `transfer ${o}`),
  "debit ok",
  "debit insufficient_balance",
  ...["ok", "insufficient_balance", "hold_exists", "transaction_exists"].map((o) => `hold ${o}`),
  ...["ok", "capture_exceeds_hold", "hold_resolved"].map((o) => `capture ${o}`),
  "void ok",
  "void hold_resolved",
  ...["ok", "not_reversible", "insufficient_balance", "transaction_exists"].map(
    (o) => `reverse ${o}`,
  ),
  ...["ok", "batch_unbalanced", "batch_operation/insufficient-balance"].map((o) => `batch ${o}`),
  ...["ok", "batch_reversal_refused", "already_reversed", "batch_already_reversed"].map(
    (o) => `reverse-batch ${o}`,
  ),
  "race credit ok",
  "race hold ok",
  "race reverse ok",
  "both",
];

// ---- Steps, as fast-check draws them: indices into the run's users, wallets, holds, entries. ----

/** An amount to send, rendered for the wallet it goes to. `d` is in the wallet's display units. */
type Amt =
  | { k: "units"; d: number; form: "text" | "pad" | "number" }
  | { k: "excess"; d: number }
  | { k: "zero"; form: "text" | "number" }
  | { k: "max" }
  | { k: "huge" }
  | { k: "junk"; text: string };
/** A request id: one of a small pool (its case flipped: the same key), or a batch leg's own id. */
type Rid = { k: "plain"; n: number; upper: boolean } | { k: "leg"; b: number; i: number };
type Op =
  | { type: "credit" | "debit"; u: number; w: number; amt: Amt }
  | { type: "transfer"; from: number; to: number; w: number; amt: Amt };
type Step =
  | { kind: "credit" | "debit"; u: number; w: number; amt: Amt; rid: Rid }
  | { kind: "transfer"; from: number; to: number; w: number; amt: Amt; rid: Rid }
  | { kind: "hold"; u: number; w: number; amt: Amt; rid: Rid; expiresIn: number }
  | { kind: "capture"; h: number; amt?: Amt }
  | { kind: "void"; h: number }
  | { kind: "reverse"; e: number; rid: Rid }
  | { kind: "batch"; b: number; upper: boolean; balanced: boolean; ops: Op[] }
  | { kind: "reverse-batch"; b: number }
  | { kind: "advance"; s: number }
  | { kind: "replay" }
  | { kind: "race"; step: Step }
  | { kind: "both"; a: Step; b: Step };

const USERS = 3;
const WALLETS = 3;
const user = fc.nat(USERS - 1);
const wallet = fc.nat(WALLETS - 1);
const small = fc.integer({ min: 1, max: 4_000 });
const amt: fc.Arbitrary<Amt> = fc.oneof(
  {
    arbitrary: fc.record({
      k: fc.constant("units" as const),
      d: small,
      form: fc.constantFrom("text" as const, "pad" as const, "number" as const),
    }),
    weight: 12,
  },
  { arbitrary: fc.record({ k: fc.constant("excess" as const), d: small }), weight: 1 },
  {
    arbitrary: fc.record({
      k: fc.constant("zero" as const),
      form: fc.constantFrom("text" as const, "number" as const),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ k: fc.constant("max" as const) }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("huge" as const) }), weight: 1 },
  {
    arbitrary: fc.record({
      k: fc.constant("junk" as const),
      text: fc.constantFrom("-5", "abc", "1e3", " 5", "", "1.2.3"),
    }),
    weight: 1,
  },
);
const rid: fc.Arbitrary<Rid> = fc.oneof(
  {
    arbitrary: fc.record({ k: fc.constant("plain" as const), n: fc.nat(9), upper: fc.boolean() }),
    weight: 8,
  },
  {
    arbitrary: fc.record({ k: fc.constant("leg" as const), b: fc.nat(2), i: fc.nat(2) }),
    weight: 1,
  },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    type: fc.constantFrom("credit" as const, "debit" as const),
    u: user,
    w: wallet,
    amt,
  }),
  fc.record({ type: fc.constant("transfer" as const), from: user, to: user, w: wallet, amt }),
);
/** A debit and a credit of one amount in one wallet: what makes a balanced batch likely. */
const pair: fc.Arbitrary<Op[]> = fc
  .record({ from: user, to: user, w: wallet, amt })
  .map(({ from, to, w, amt }) => [
    { type: "debit", u: from, w, amt },
    { type: "credit", u: to, w, amt },
  ]);
const ops = fc
  .array(
    fc.oneof(
      op.map((o) => [o]),
      pair,
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((chunks) => chunks.flat());

const alone: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant("credit" as const), u: user, w: wallet, amt, rid }),
    weight: 6,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("debit" as const), u: user, w: wallet, amt, rid }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("transfer" as const),
      from: user,
      to: user,
      w: wallet,
      amt,
      rid,
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("hold" as const),
      u: user,
      w: wallet,
      amt,
      rid,
      expiresIn: fc.constantFrom(2, 5, 3_600),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record(
      { kind: fc.constant("capture" as const), h: fc.nat(20), amt },
      { requiredKeys: ["kind", "h"] },
    ),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant("void" as const), h: fc.nat(20) }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant("reverse" as const), e: fc.nat(60), rid }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("batch" as const),
      b: fc.nat(3),
      upper: fc.boolean(),
      balanced: fc.boolean(),
      ops,
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("reverse-batch" as const), b: fc.nat(10) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      s: fc.integer({ min: -3, max: 4 }),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant("replay" as const) }), weight: 2 },
);

/** A step alone, sent twice at once (a client's retry racing its first attempt), or two at once. */
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: alone, weight: 12 },
  { arbitrary: fc.record({ kind: fc.constant("race" as const), step: alone }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("both" as const), a: alone, b: alone }), weight: 1 },
);

// ---- The model: exact integers, nothing read from the service. ----

type WalletUnits = { id: string; decimals: number; extra: number };
type MEntry = {
  id: number;
  u: number;
  w: number;
  type: "CREDIT" | "DEBIT";
  minor: number;
  text: string;
  imported: boolean;
  reversesId: number | null;
  /** The entries moved together (a transfer's halves, a reversal of one): reversed as one. */
  group: string | null;
  holdId: number | null;
  batchId: number | null;
  reversed: boolean;
};
type MHold = {
  id: number;
  u: number;
  w: number;
  minor: number;
  text: string;
  status: "held" | "captured" | "voided";
  createdAtS: number;
  expiresAtS: number;
  resolvedAtS: number | null;
};
type MBatch = { id: number; key: string | null; entries: number[]; reverses: number | null };
type Use = { entry: number } | { hold: number };

/** An entry the model expects a verb to write next (its id comes from the answer). */
type Planned = Omit<MEntry, "id" | "reversed" | "imported"> & { key: string | null };

/** What the model says a step does: a refusal, or these rows written. */
type Prediction =
  | { refused: RefusalReason | RefusalReason[] }
  | {
      entries: Planned[];
      hold?: Omit<MHold, "id"> & { key: string };
      resolve?: { hold: number; status: "captured" | "voided" };
      batch?: { key: string | null; reverses: number | null };
      /** The entries a reversal undoes, in the order it names them. */
      reverses?: number[];
    };

const MAX = MAX_MINOR;
const pow10 = (n: number) => 10 ** n;

/** The contract's reading of an amount for a wallet (docs/ledger.md): storage units, or why not. */
function modelMinor(sent: string | number, w: WalletUnits): number | string {
  let text: string;
  if (typeof sent === "number") {
    if (sent <= 0) return "not-positive";
    text = String(sent);
  } else text = sent;
  const m = /^([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (!m) return /^-[0-9]+(\.[0-9]+)?$/.test(text) ? "not-positive" : "not-numeric";
  const [int, frac = ""] = [m[1]!, m[2]];
  if (/^0*$/.test(int) && /^0*$/.test(frac)) return "not-positive";
  if (!/^0*$/.test(frac.slice(w.decimals))) return "too-many-decimals";
  const places = w.decimals + w.extra;
  const units = BigInt(int + frac.slice(0, places).padEnd(places, "0"));
  return units > BigInt(MAX) ? "too-large" : Number(units);
}

/** An amount as sent to wallet `w`. */
function render(a: Amt, w: WalletUnits): string | number {
  const show = (d: number) => {
    if (w.decimals === 0) return String(d);
    const s = String(d).padStart(w.decimals + 1, "0");
    return `${s.slice(0, -w.decimals)}.${s.slice(-w.decimals)}`;
  };
  switch (a.k) {
    case "units":
      return a.form === "pad"
        ? `${show(a.d)}${w.decimals === 0 ? ".00" : "00"}`
        : a.form === "number"
          ? Number(show(a.d))
          : show(a.d);
    case "excess":
      return `${show(a.d)}${w.decimals === 0 ? ".1" : "1"}`;
    case "zero":
      return a.form === "number" ? 0 : "0.00";
    case "max":
      return show(Math.floor(MAX / pow10(w.extra)));
    case "huge":
      return "100000000000000000000";
    case "junk":
      return a.text;
  }
}

class Model {
  bal: number[][] = Array.from({ length: USERS }, () => Array<number>(WALLETS).fill(0));
  entries: MEntry[] = [];
  holds: MHold[] = [];
  batches: MBatch[] = [];
  keys: Map<string, Use>[] = Array.from({ length: USERS }, () => new Map());
  nowMs = 0;

  clone() {
    const m = new Model();
    m.bal = this.bal.map((row) => [...row]);
    m.entries = this.entries.map((e) => ({ ...e }));
    m.holds = this.holds.map((h) => ({ ...h }));
    m.batches = this.batches.map((b) => ({ ...b, entries: [...b.entries] }));
    m.keys = this.keys.map((k) => new Map(k));
    m.nowMs = this.nowMs;
    return m;
  }
  get nowS() {
    return Math.floor(this.nowMs / 1000);
  }
  held(u: number, w: number) {
    return this.holds
      .filter((h) => h.u === u && h.w === w && h.status === "held" && h.expiresAtS > this.nowS)
      .reduce((sum, h) => sum + h.minor, 0);
  }
  /** Why writing these entries in order would be refused by the ledger, and at which. */
  judge(planned: Pick<Planned, "u" | "w" | "type" | "minor">[], except?: number) {
    const bal = this.bal.map((row) => [...row]);
    for (const [i, e] of planned.entries()) {
      const before = bal[e.u]![e.w]!;
      const after = before + (e.type === "CREDIT" ? e.minor : -e.minor);
      // A capture's own hold no longer counts once it is captured.
      const held = this.held(e.u, e.w) - (except !== undefined && i === 0 ? except : 0);
      if (e.type === "CREDIT" && after > MAX)
        return { at: i, verdicts: ["balance-limit"] as Verdict[] };
      if (e.type === "DEBIT" && after < Math.max(0, held))
        return { at: i, verdicts: ["insufficient-balance"] as Verdict[] };
      bal[e.u]![e.w] = after;
    }
    return undefined;
  }
  /**
   * Whether the holds of these legs' wallets are ones a refused batch's replay cannot count as the
   * guard did. It names the leg by replaying the legs against the holds as they stood at their
   * second (docs/ledger.md#batches): placed by then, and not resolved before it. So a hold resolved
   * in that very second (or, the clock set back, after it) counts though it was resolved before
   * the batch, and one placed in a later second (the clock set back since) does not though the
   * guard counted it: the leg named may then be another (whole seconds cannot tell), so any is
   * accepted.
   */
  holdsUnclear(legs: { u: number; w: number }[]) {
    return this.holds.some(
      (h) =>
        legs.some((l) => l.u === h.u && l.w === h.w) &&
        ((h.resolvedAtS !== null && h.resolvedAtS >= this.nowS) ||
          (h.status === "held" && h.createdAtS > this.nowS)),
    );
  }
  used(u: number, key: string): RefusalReason | undefined {
    const use = this.keys[u]!.get(key);
    if (!use) return undefined;
    return "entry" in use
      ? { code: "transaction_exists", existingId: use.entry }
      : { code: "hold_exists", holdId: use.hold };
  }
  apply(
    p: Exclude<Prediction, { refused: unknown }>,
    ids: number[],
    holdId?: number,
    batchId?: number,
  ) {
    for (const [i, e] of p.entries.entries()) {
      const id = ids[i]!;
      this.entries.push({
        ...e,
        id,
        imported: false,
        reversed: false,
        holdId: e.holdId ?? (p.resolve?.status === "captured" ? p.resolve.hold : null),
        batchId: p.batch ? batchId! : null,
      });
      this.bal[e.u]![e.w]! += e.type === "CREDIT" ? e.minor : -e.minor;
      if (e.key !== null) this.keys[e.u]!.set(e.key, { entry: id });
      if (e.reversesId !== null) this.entries.find((x) => x.id === e.reversesId)!.reversed = true;
    }
    if (p.hold) {
      const { key, ...hold } = p.hold;
      this.holds.push({ ...hold, id: holdId! });
      this.keys[hold.u]!.set(key, { hold: holdId! });
    }
    if (p.resolve) {
      const h = this.holds.find((x) => x.id === p.resolve!.hold)!;
      h.status = p.resolve.status;
      h.resolvedAtS = this.nowS;
    }
    if (p.batch) this.batches.push({ id: batchId!, ...p.batch, entries: ids });
  }
}

// ---- The run: the service and the model side by side. ----

const as = (u: TestUser): Principal => ({ userId: u.id, username: u.username, role: u.role });
const amountSent = (sent: string | number) => ({ sent, policy: "refuse-excess-places" as const });

type Outcome = { ok: Record<string, unknown> } | { refused: RefusalReason };

async function outcomeOf(work: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: (await work) as Record<string, unknown> };
  } catch (err) {
    const reason = refusalOf(err);
    if (!reason) throw err;
    return { refused: reason };
  }
}

/** Counts of every table, and the rows of the run's users that a refusal might change in place. */
async function snapshot(userIds: number[]) {
  const ids = userIds.join(",");
  const rows = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM balance_timeline) AS timeline,
       (SELECT group_concat(x, ';') FROM (SELECT id || ':' || status || ':' || coalesce(resolved_at_s, '') || ':' ||
          coalesce(captured_minor, '') AS x FROM holds WHERE user_id IN (${ids}) ORDER BY id)) AS holds,
       (SELECT group_concat(x, ';') FROM (SELECT user_id || ':' || wallet_id || ':' || balance_minor || ':' ||
          entry_count AS x FROM balances WHERE user_id IN (${ids}) ORDER BY user_id, wallet_id)) AS balances,
       (SELECT coalesce(max(id), 0) FROM transactions) AS last_entry,
       (SELECT coalesce(max(id), 0) FROM events) AS last_event,
       (SELECT coalesce(max(id), 0) FROM holds) AS last_hold,
       (SELECT coalesce(max(id), 0) FROM batches) AS last_batch`,
  ).first<Record<string, number | string | null>>();
  return { ...(await tableCounts()), ...rows };
}

/** Each (user, wallet) of the run as stored: balance, its entries' sum and count, its last point, holds. */
async function positions(userIds: number[], walletIds: string[], nowS: number) {
  const { results } = await env.DB.prepare(
    `SELECT u.value AS user_id, w.value AS wallet_id,
       (SELECT balance_minor FROM balances b WHERE b.user_id = u.value AND b.wallet_id = w.value) AS balance,
       (SELECT entry_count FROM balances b WHERE b.user_id = u.value AND b.wallet_id = w.value) AS entry_count,
       (SELECT coalesce(sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END), 0)
          FROM transactions t WHERE t.user_id = u.value AND t.wallet_id = w.value) AS total,
       (SELECT count(*) FROM transactions t WHERE t.user_id = u.value AND t.wallet_id = w.value) AS n,
       (SELECT balance_after_minor FROM balance_timeline p WHERE p.user_id = u.value AND p.wallet_id = w.value
          ORDER BY at_s DESC, seq DESC LIMIT 1) AS last_point,
       (SELECT coalesce(sum(amount_minor), 0) FROM holds h WHERE h.user_id = u.value AND h.wallet_id = w.value
          AND h.status = 'held' AND h.expires_at_s > ?) AS held
     FROM json_each(?) u, json_each(?) w ORDER BY u.key, w.key`,
  )
    .bind(nowS, JSON.stringify(userIds), JSON.stringify(walletIds))
    .all<Record<string, number | null>>();
  return results;
}

describe(`the money verbs against a model (fast-check seed ${SEED})`, () => {
  it("agree with the model after every step: answers, rows written, balances, holds, events", {
    timeout: 120_000,
  }, async () => {
    const admin = await makeAdmin();
    const base = serviceAs(as(admin));
    const units: WalletUnits[] = [
      { id: await makeWallet(admin, { decimals: 2 }), decimals: 2, extra: 0 },
      { id: await makeWallet(admin, { decimals: 0 }), decimals: 0, extra: 0 },
      // Imported: shows 2 places, stores 3.
      { id: await storingMore(1), decimals: 2, extra: 1 },
    ];
    const walletIds = units.map((w) => w.id);
    let run = 0;
    const reached = new Map<string, number>();

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 15, maxLength: MAX_STEPS }), async (steps) => {
        run++;
        const tag = unique("m").toLowerCase();
        const people = [await makeUser(), await makeUser(), await makeUser()];
        const userIds = people.map((p) => p.id);
        let model = new Model();
        model.nowMs = Date.UTC(2027, 0, 1) + run * 1_000_000_000 + 500;
        const ctx: ServiceContext = {
          ...base,
          nowMs: () => model.nowMs,
          stamp: () => ({ nowMs: model.nowMs, guidSite: null }),
        };

        // The import's history, as the site recorded it: on the wallet storing more places user 2
        // ends below zero, user 0 has an entry of zero (the plugin's zero credit) and one of three
        // places; transfers, one between two wallets and one with a zero half.
        type Imported = [
          u: number,
          w: number,
          type: "CREDIT" | "DEBIT",
          minor: number,
          text: string,
        ];
        const history: (Imported | [Imported, Imported])[] = [
          [2, 2, "CREDIT", 1_234, "1.234"],
          [2, 2, "DEBIT", 5_000, "5"],
          [0, 2, "CREDIT", 12_345, "12.345"],
          [0, 2, "DEBIT", 0, "0"],
          [
            [1, 2, "DEBIT", 2_500, "2.5"],
            [0, 2, "CREDIT", 2_500, "2.5"],
          ],
          [
            [0, 0, "DEBIT", 100, "1"],
            [1, 2, "CREDIT", 1_000, "1"],
          ],
          [
            [2, 1, "DEBIT", 0, "0.004"],
            [0, 2, "CREDIT", 4, "0.004"],
          ],
        ];
        for (const [n, item] of history.entries()) {
          const movement = Array.isArray(item[0]) ? (item as Imported[]) : [item as Imported];
          const group = movement.length > 1 ? `${tag}-imported-${n}` : null;
          for (const [u, w, type, minor, text] of movement) {
            const before = model.bal[u]![w]!;
            const after = before + (type === "CREDIT" ? minor : -minor);
            const slug = unique("imp");
            const { id } = (await env.DB.prepare(
              `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text,
                 balance_before_minor, balance_after_minor, request_id, request_key, transfer_id, note,
                 title, slug_base, slug, created_at_s, imported)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', 't', ?, ?, ?, 1) RETURNING id`,
            )
              .bind(
                userIds[u],
                walletIds[w],
                type,
                minor,
                text,
                before,
                after,
                slug,
                slug,
                group,
                slug,
                slug,
                model.nowS - 86_400,
              )
              .first<{ id: number }>())!;
            model.entries.push({
              id,
              u,
              w,
              type,
              minor,
              text,
              imported: true,
              reversesId: null,
              group,
              holdId: null,
              batchId: null,
              reversed: false,
            });
            model.bal[u]![w] = after;
          }
        }

        const ridText = (r: Rid) =>
          r.k === "plain"
            ? r.upper
              ? `R${r.n}`
              : `r${r.n}`
            : legRequestId(batchRid(r.b, false), r.i);
        const batchRid = (b: number, upper: boolean) =>
          upper ? `${tag}-b${b}`.toUpperCase() : `${tag}-b${b}`;

        let before = await snapshot(userIds);
        let last: Step | undefined;
        const log: string[] = [];

        // Money to move, in one batch: each user funded in each wallet but the one user 2 owes in.
        const funding: Step = {
          kind: "batch",
          b: 9,
          upper: false,
          balanced: false,
          ops: [0, 1, 2].flatMap((u) =>
            [0, 1, 2]
              .filter((w) => u !== 2 || w !== 2)
              .map((w) => ({
                type: "credit" as const,
                u,
                w,
                amt: { k: "units" as const, d: 6_000, form: "text" as const },
              })),
          ),
        };
        for (const drawn of [funding, ...steps]) {
          if (drawn.kind === "both") {
            if (!(await both(drawn.a, drawn.b))) continue;
            await positionsAgree();
            continue;
          }
          const fresh = drawn.kind === "race" ? drawn.step : drawn;
          const s: Step | undefined = fresh.kind === "replay" ? last : fresh;
          if (!s) continue;
          last = s;
          const sizes = {
            holds: model.holds.length,
            entries: model.entries.length,
            batches: model.batches.length,
          };
          const { prediction, call } = plan(s, sizes);
          if (!call) continue;
          // A race: the step sent twice at once. The model's answer is the first's; the second is
          // refused as a replay of it (or as it was, when the first was refused).
          const outcomes = await Promise.all(
            (drawn.kind === "race" ? [call, call] : [call]).map((c) => outcomeOf(c())),
          );
          for (const outcome of outcomes) {
            const seen = `${drawn.kind === "race" ? "race " : ""}${s.kind} ${"ok" in outcome ? "ok" : refusalName(outcome.refused)}`;
            reached.set(seen, (reached.get(seen) ?? 0) + 1);
          }
          log.push(
            `${drawn.kind === "race" ? "race " : ""}${JSON.stringify(s)} -> ${JSON.stringify(outcomes)}`,
          );
          const where = () => `run ${run} step ${log.length}:\n${log.join("\n")}`;
          const after = await snapshot(userIds);
          const refusedAs = (expected: Prediction, got: Outcome) => {
            if (!("refused" in expected)) throw new Error(`${where()}\nthe model writes it again`);
            const reasons = Array.isArray(expected.refused) ? expected.refused : [expected.refused];
            expect("refused" in got, where()).toBe(true);
            expect(
              reasons.some((r) => matches((got as { refused: RefusalReason }).refused, r)),
              `${where()}\nexpected one of ${JSON.stringify(reasons)}`,
            ).toBe(true);
          };

          if ("refused" in prediction) {
            for (const outcome of outcomes) refusedAs(prediction, outcome);
            // Nothing written, nothing changed.
            expect(after, where()).toEqual(before);
          } else {
            const won = outcomes.filter((o) => "ok" in o);
            expect(won.length, `${where()}\nexpected ${JSON.stringify(prediction)}`).toBe(1);
            await checkWritten(
              s,
              prediction,
              (won[0] as { ok: Record<string, unknown> }).ok,
              before,
              where,
            );
            const lost = outcomes.find((o) => "refused" in o);
            if (lost) refusedAs(plan(s, sizes).prediction, lost);
          }
          before = after;

          await positionsAgree();
        }

        // What the service answers as available, at the model's clock.
        for (const [u, id] of userIds.entries()) {
          const rows = await availableBalances(ctx, id);
          for (const r of rows) {
            const w = walletIds.indexOf(r.wallet.id);
            expect(r.balanceMinor).toBe(model.bal[u]![w]);
            expect(r.availableMinor).toBe(model.bal[u]![w]! - model.held(u, w));
          }
        }
        expect(await ledgerViolations()).toEqual(CLEAN);

        /** The model's prediction for a step, and the verb call that performs it. */
        /** Every (user, wallet) as stored agrees with the model. */
        async function positionsAgree() {
          const where = () => `run ${run} step ${log.length}:\n${log.join("\n")}`;
          // Every (user, wallet): balance = sum of entries = the timeline's last point = the model's;
          // available = balance − counting holds, below zero only where the balance is.
          const stored = await positions(userIds, walletIds, model.nowS);
          for (const row of stored) {
            const u = userIds.indexOf(row.user_id!);
            const w = walletIds.indexOf(row.wallet_id as unknown as string);
            const balance = model.bal[u]![w]!;
            const label = `${where()}\nuser ${u} wallet ${w}`;
            expect(row.balance ?? 0, label).toBe(balance);
            expect(row.total, label).toBe(balance);
            expect(row.entry_count ?? 0, label).toBe(row.n);
            expect(row.last_point ?? 0, label).toBe(balance);
            expect(row.held, label).toBe(model.held(u, w));
            if (balance >= 0) expect(balance - row.held!, label).toBeGreaterThanOrEqual(0);
          }
        }

        /**
         * Two different steps sent at once: their answers must be those of one order or the other,
         * and the ledger what that order leaves.
         */
        async function both(a: Step, b: Step) {
          const steps = [a, b].map((x) => (x.kind === "replay" ? last : x));
          if (steps.some((x) => x === undefined || x.kind === "advance" || x.kind === "replay"))
            return false;
          const [sa, sb] = steps as [Step, Step];
          const sizes = {
            holds: model.holds.length,
            entries: model.entries.length,
            batches: model.batches.length,
          };
          const calls = [plan(sa, sizes).call, plan(sb, sizes).call];
          if (!calls[0] || !calls[1]) return false;
          const outcomes = await Promise.all(calls.map((c) => outcomeOf(c!())));
          log.push(`both ${JSON.stringify([sa, sb])} -> ${JSON.stringify(outcomes)}`);
          const after = await snapshot(userIds);
          const saved = model;
          for (const order of [
            [0, 1],
            [1, 0],
          ]) {
            model = saved.clone();
            const agree = order.every((i) => agrees([sa, sb][i]!, sizes, outcomes[i]!));
            if (!agree) continue;
            if (
              model.entries.length === saved.entries.length &&
              model.holds.length === saved.holds.length &&
              model.holds.every((h, i) => h.status === saved.holds[i]!.status)
            )
              expect(after, log.join("\n")).toEqual(before);
            expect(Number(after.transactions) - Number(before.transactions), log.join("\n")).toBe(
              model.entries.length - saved.entries.length,
            );
            before = after;
            last = sb;
            reached.set("both", (reached.get("both") ?? 0) + 1);
            return true;
          }
          model = saved;
          throw new Error(
            `run ${run}:\n${log.join("\n")}\nno order of the two gives these answers`,
          );
        }

        /** Whether an answer is the model's for this step (and if written, the model takes it). */
        function agrees(s: Step, sizes: Parameters<typeof plan>[1], outcome: Outcome) {
          const { prediction } = plan(s, sizes);
          if ("refused" in prediction) {
            const reasons = Array.isArray(prediction.refused)
              ? prediction.refused
              : [prediction.refused];
            return "refused" in outcome && reasons.some((r) => matches(outcome.refused, r));
          }
          if (!("ok" in outcome)) return false;
          // biome-ignore lint/suspicious/noExplicitAny: each verb's answer, read for the ids it names
          const ok = outcome.ok as any;
          const ids: number[] =
            s.kind === "credit" || s.kind === "debit" || s.kind === "capture"
              ? [ok.transactionId]
              : s.kind === "transfer"
                ? [ok.debitId, ok.creditId]
                : (ok.transactionIds ?? []);
          if (ids.length !== prediction.entries.length) return false;
          model.apply(
            prediction,
            ids,
            s.kind === "hold" ? ok.hold.id : undefined,
            s.kind === "batch"
              ? ok.batchId
              : s.kind === "reverse-batch"
                ? ok.reversalBatchId
                : undefined,
          );
          return true;
        }

        /**
         * `sizes`: how many holds, entries and batches the model had when the step was drawn, so a
         * step planned again (the loser of a race) names the same hold, entry or batch.
         */
        function plan(
          s: Step,
          sizes = {
            holds: model.holds.length,
            entries: model.entries.length,
            batches: model.batches.length,
          },
        ): { prediction: Prediction; call?: () => Promise<unknown> } {
          const none = { prediction: { entries: [] } as Prediction };
          switch (s.kind) {
            case "advance":
              model.nowMs += s.s * 1000;
              return none;
            case "replay":
            case "race":
            case "both":
              return none;
            case "credit":
            case "debit": {
              const w = units[s.w]!;
              const sent = render(s.amt, w);
              const requestId = ridText(s.rid);
              const call = () =>
                (s.kind === "credit" ? credit : debit)(ctx, {
                  user: { id: userIds[s.u]! },
                  walletId: w.id,
                  amount: amountSent(sent),
                  requestId,
                  note: "",
                });
              const minor = modelMinor(sent, w);
              if (typeof minor === "string")
                return { prediction: { refused: amountRefused(minor) }, call };
              const key = requestKey(requestId);
              const used = model.used(s.u, key);
              if (used) return { prediction: { refused: used }, call };
              const e: Planned = {
                u: s.u,
                w: s.w,
                type: s.kind === "credit" ? "CREDIT" : "DEBIT",
                minor,
                text: String(sent),
                reversesId: null,
                group: null,
                holdId: null,
                batchId: null,
                key,
              };
              const no = model.judge([e]);
              if (no) return { prediction: { refused: single(no.verdicts) }, call };
              return { prediction: { entries: [e] }, call };
            }
            case "transfer": {
              const w = units[s.w]!;
              const sent = render(s.amt, w);
              const requestId = ridText(s.rid);
              const call = () =>
                transfer(ctx, {
                  from: { id: userIds[s.from]! },
                  to: { id: userIds[s.to]! },
                  walletId: w.id,
                  amount: amountSent(sent),
                  requestId,
                  note: "",
                });
              if (s.from === s.to) return { prediction: { refused: { code: "same_user" } }, call };
              const minor = modelMinor(sent, w);
              if (typeof minor === "string")
                return { prediction: { refused: amountRefused(minor) }, call };
              const key = requestKey(requestId);
              const used = model.used(s.from, key);
              if (used) return { prediction: { refused: used }, call };
              const group = `t${model.entries.length}:${log.length}`;
              const legs: Planned[] = [
                {
                  u: s.from,
                  w: s.w,
                  type: "DEBIT",
                  minor,
                  text: String(sent),
                  reversesId: null,
                  group,
                  holdId: null,
                  batchId: null,
                  key,
                },
                {
                  u: s.to,
                  w: s.w,
                  type: "CREDIT",
                  minor,
                  text: String(sent),
                  reversesId: null,
                  group,
                  holdId: null,
                  batchId: null,
                  key: null,
                },
              ];
              const no = model.judge(legs);
              if (no) return { prediction: { refused: single(no.verdicts) }, call };
              return { prediction: { entries: legs }, call };
            }
            case "hold": {
              const w = units[s.w]!;
              const sent = render(s.amt, w);
              const requestId = ridText(s.rid);
              const call = () =>
                placeHold(ctx, {
                  user: { id: userIds[s.u]! },
                  walletId: w.id,
                  amount: amountSent(sent),
                  requestId,
                  note: "",
                  expiresInS: s.expiresIn,
                });
              const minor = modelMinor(sent, w);
              if (typeof minor === "string")
                return { prediction: { refused: amountRefused(minor) }, call };
              const key = requestKey(requestId);
              const used = model.used(s.u, key);
              if (used) return { prediction: { refused: used }, call };
              if (model.bal[s.u]![s.w]! - model.held(s.u, s.w) < minor)
                return { prediction: { refused: { code: "insufficient_balance" } }, call };
              const expiresAtS = Math.ceil(model.nowMs / 1000) + s.expiresIn;
              return {
                prediction: {
                  entries: [],
                  hold: {
                    u: s.u,
                    w: s.w,
                    minor,
                    text: String(sent),
                    status: "held",
                    createdAtS: model.nowS,
                    expiresAtS,
                    resolvedAtS: null,
                    key,
                  },
                },
                call,
              };
            }
            case "capture":
            case "void": {
              if (sizes.holds === 0) return none;
              const h = model.holds[s.h % sizes.holds]!;
              const w = units[h.w]!;
              const ref = { id: h.id, ref: String(h.id) };
              const status =
                h.status === "held" && h.expiresAtS <= model.nowS ? "expired" : h.status;
              const resolved = { code: "hold_resolved" as const, holdId: h.id, status };
              if (s.kind === "void") {
                const call = () => voidHold(ctx, { hold: ref });
                if (status !== "held")
                  return { prediction: { refused: resolved as RefusalReason }, call };
                return {
                  prediction: { entries: [], resolve: { hold: h.id, status: "voided" } },
                  call,
                };
              }
              const sent = s.amt && render(s.amt, w);
              const call = () =>
                captureHold(ctx, {
                  hold: ref,
                  amount: sent === undefined ? undefined : amountSent(sent),
                  note: "",
                });
              const minor = sent === undefined ? h.minor : modelMinor(sent, w);
              if (typeof minor === "string")
                return { prediction: { refused: amountRefused(minor) }, call };
              if (minor > h.minor)
                return {
                  prediction: { refused: { code: "capture_exceeds_hold" } as RefusalReason },
                  call,
                };
              if (status !== "held")
                return { prediction: { refused: resolved as RefusalReason }, call };
              const e: Planned = {
                u: h.u,
                w: h.w,
                type: "DEBIT",
                minor,
                text: sent === undefined ? h.text : String(sent),
                reversesId: null,
                group: null,
                holdId: h.id,
                batchId: null,
                key: null,
              };
              const no = model.judge([e], h.minor);
              if (no) return { prediction: { refused: single(no.verdicts) }, call };
              return {
                prediction: { entries: [e], resolve: { hold: h.id, status: "captured" } },
                call,
              };
            }
            case "reverse": {
              if (sizes.entries === 0) return none;
              const target = model.entries[s.e % sizes.entries]!;
              const requestId = ridText(s.rid);
              const call = () =>
                reverse(ctx, { id: target.id, ref: String(target.id), requestId, note: "" });
              const movement = model.entries.filter(
                (e) => e === target || (target.group !== null && e.group === target.group),
              );
              if (movement.some((e) => e.reversesId !== null))
                return {
                  prediction: {
                    refused: { code: "not_reversible", why: "a reversal cannot be reversed" },
                  },
                  call,
                };
              if (movement.some((e) => e.minor === 0))
                return {
                  prediction: {
                    refused: {
                      code: "not_reversible",
                      why: "a transaction of zero cannot be reversed",
                    },
                  },
                  call,
                };
              const key = requestKey(requestId);
              const used = model.used(target.u, key);
              if (used) return { prediction: { refused: used }, call };
              if (target.reversed)
                return {
                  prediction: { refused: { code: "already_reversed", ref: String(target.id) } },
                  call,
                };
              const ordered = [target, ...movement.filter((e) => e !== target)];
              const group = ordered.length > 1 ? `r${target.id}` : null;
              const legs: Planned[] = ordered.map((e, i) => ({
                u: e.u,
                w: e.w,
                type: e.type === "CREDIT" ? "DEBIT" : "CREDIT",
                minor: e.minor,
                text: e.text,
                reversesId: e.id,
                group,
                holdId: null,
                batchId: null,
                key: i === 0 ? key : null,
              }));
              const no = model.judge(legs);
              if (no) return { prediction: { refused: single(no.verdicts) }, call };
              return { prediction: { entries: legs, reverses: ordered.map((e) => e.id) }, call };
            }
            case "batch": {
              const requestId = batchRid(s.b, s.upper);
              const operations: BatchOperation[] = s.ops.map((o) => {
                const walletId = units[o.w]!.id;
                const amount = amountSent(render(o.amt, units[o.w]!));
                return o.type === "transfer"
                  ? {
                      type: "transfer",
                      from: { id: userIds[o.from]! },
                      to: { id: userIds[o.to]! },
                      walletId,
                      amount,
                      note: "",
                    }
                  : { type: o.type, user: { id: userIds[o.u]! }, walletId, amount, note: "" };
              });
              const call = () => postBatch(ctx, { requestId, balanced: s.balanced, operations });
              return { prediction: predictBatch(s, requestId), call };
            }
            case "reverse-batch": {
              if (sizes.batches === 0) return none;
              const b = model.batches[s.b % sizes.batches]!;
              const call = () => reverseBatch(ctx, { id: b.id, ref: String(b.id), note: "" });
              return { prediction: predictBatchReversal(b), call };
            }
          }
        }

        function predictBatch(s: Extract<Step, { kind: "batch" }>, requestId: string): Prediction {
          const minors: number[] = [];
          for (const [index, o] of s.ops.entries()) {
            if (o.type === "transfer" && o.from === o.to)
              return {
                refused: { code: "batch_operation", index, refused: { code: "same_user" } },
              };
            const w = units[o.w]!;
            const minor = modelMinor(render(o.amt, w), w);
            if (typeof minor === "string")
              return { refused: { code: "batch_operation", index, refused: amountRefused(minor) } };
            minors.push(minor);
          }
          if (s.balanced) {
            const sums = new Map<number, [number, number]>();
            for (const [i, o] of s.ops.entries()) {
              const sum = sums.get(o.w) ?? [0, 0];
              if (o.type !== "debit") sum[0] += minors[i]!;
              if (o.type !== "credit") sum[1] += minors[i]!;
              sums.set(o.w, sum);
            }
            for (const [w, [c, d]] of sums)
              if (c !== d)
                return {
                  refused: { code: "batch_unbalanced", walletId: units[w]!.id } as RefusalReason,
                };
          }
          const key = requestKey(requestId);
          const existing = model.batches.find((b) => b.key === key);
          if (existing) return { refused: { code: "batch_exists", batchId: existing.id } };
          const legs: (Planned & { index: number })[] = [];
          for (const [index, o] of s.ops.entries()) {
            const legKey = requestKey(legRequestId(requestId, index));
            const common = {
              w: o.w,
              minor: minors[index]!,
              text: String(render(o.amt, units[o.w]!)),
              reversesId: null,
              holdId: null,
              batchId: null,
              index,
            };
            if (o.type === "transfer") {
              const group = `b${key}#${index}`;
              legs.push(
                { ...common, u: o.from, type: "DEBIT", group, key: legKey },
                { ...common, u: o.to, type: "CREDIT", group, key: null },
              );
            } else
              legs.push({
                ...common,
                u: o.u,
                type: o.type === "credit" ? "CREDIT" : "DEBIT",
                group: null,
                key: legKey,
              });
          }
          // The first leg the ledger refuses: its key taken, or its balance (either, if both).
          const no = model.judge(legs);
          for (const [i, leg] of legs.entries()) {
            const used = leg.key === null ? undefined : model.used(leg.u, leg.key);
            const overdraws = no?.at === i;
            const reasons: RefusalReason[] = [];
            if (used) reasons.push({ code: "batch_operation", index: leg.index, refused: used });
            if (overdraws)
              for (const v of no.verdicts) {
                reasons.push({ code: "batch_operation", index: leg.index, refused: v });
                if (model.holdsUnclear(legs))
                  reasons.push({ code: "batch_operation", index: ANY, refused: v });
              }
            if (reasons.length > 0) return { refused: reasons };
          }
          return { entries: legs, batch: { key, reverses: null } };
        }

        function predictBatchReversal(b: MBatch): Prediction {
          if (b.reverses !== null)
            return {
              refused: { code: "not_reversible", why: "a batch reversal cannot be reversed" },
            };
          if (model.batches.some((x) => x.reverses === b.id))
            return { refused: { code: "batch_already_reversed", ref: String(b.id) } };
          // Newest first; in the places each (user, wallet) holds, its DEBITs before its CREDITs,
          // so that its undoing raises the balance before it lowers it.
          const newestFirst = b.entries
            .map((id) => model.entries.find((e) => e.id === id)!)
            .reverse();
          const chain = (e: (typeof newestFirst)[number]) => `${e.u}:${e.w}`;
          const debitsFirst = (key: string) =>
            ["DEBIT", "CREDIT"].flatMap((t) =>
              newestFirst.filter((e) => chain(e) === key && e.type === t),
            );
          const queues = new Map(newestFirst.map((e) => [chain(e), debitsFirst(chain(e))]));
          const originals = newestFirst.map((e) => queues.get(chain(e))!.shift()!);
          const hit = originals.find((e) => e.reversed);
          if (hit) return { refused: { code: "already_reversed", ref: String(hit.id) } };
          const groups = new Map<string, string>();
          const legs: Planned[] = originals.map((e) => ({
            u: e.u,
            w: e.w,
            type: e.type === "CREDIT" ? "DEBIT" : "CREDIT",
            minor: e.minor,
            text: e.text,
            reversesId: e.id,
            group:
              e.group === null
                ? null
                : (groups.get(e.group) ?? groups.set(e.group, `rb${e.group}`).get(e.group)!),
            holdId: null,
            batchId: null,
            key: null,
          }));
          const no = model.judge(legs);
          if (no)
            return {
              refused: no.verdicts.flatMap((v) =>
                [originals[no.at]!.id, ...(model.holdsUnclear(legs) ? [ANY] : [])].map(
                  (entryId) => ({ code: "batch_reversal_refused" as const, entryId, refused: v }),
                ),
              ),
            };
          return { entries: legs, batch: { key: null, reverses: b.id } };
        }

        /** The rows a step wrote are the model's, its answer names them, and the model moves on. */
        async function checkWritten(
          s: Step,
          p: Exclude<Prediction, { refused: unknown }>,
          ok: Record<string, unknown>,
          from: Awaited<ReturnType<typeof snapshot>>,
          where: () => string,
        ) {
          const [entries, events, holds, batches] = await Promise.all([
            env.DB.prepare(
              `SELECT id, user_id, wallet_id, txn_type, amount_minor, amount_text, reverses_id, hold_id, batch_id, transfer_id
               FROM transactions WHERE id > ? ORDER BY id`,
            )
              .bind(from.last_entry)
              .all<Record<string, number | string | null>>(),
            env.DB.prepare("SELECT type, subject FROM events WHERE id > ? ORDER BY id")
              .bind(from.last_event)
              .all<{ type: string; subject: string }>(),
            env.DB.prepare(
              "SELECT id, user_id, wallet_id, amount_minor, status, expires_at_s FROM holds WHERE id > ?",
            )
              .bind(from.last_hold)
              .all<Record<string, number | string>>(),
            env.DB.prepare("SELECT id, reverses_batch_id, entry_count FROM batches WHERE id > ?")
              .bind(from.last_batch)
              .all<Record<string, number | null>>(),
          ]);
          const ids = entries.results.map((r) => r.id as number);
          const batchId = batches.results[0]?.id ?? undefined;
          expect(
            entries.results.map((r) => ({
              u: userIds.indexOf(r.user_id as number),
              w: walletIds.indexOf(r.wallet_id as string),
              type: r.txn_type,
              minor: r.amount_minor,
              text: r.amount_text,
              reversesId: r.reverses_id,
              holdId: r.hold_id,
              batchId: r.batch_id,
            })),
            where(),
          ).toEqual(
            p.entries.map((e) => ({
              u: e.u,
              w: e.w,
              type: e.type,
              minor: e.minor,
              text: e.text,
              reversesId: e.reversesId,
              holdId: e.holdId,
              batchId: p.batch ? batchId : null,
            })),
          );
          // A movement's halves share a transfer id; entries of different movements never do.
          const groupOf = new Map<string, unknown>();
          for (const [i, e] of p.entries.entries()) {
            const t = entries.results[i]!.transfer_id;
            if (e.group === null) expect(t, where()).toBeNull();
            else {
              expect(t, where()).not.toBeNull();
              if (groupOf.has(e.group)) expect(t, where()).toBe(groupOf.get(e.group));
              groupOf.set(e.group, t);
            }
          }
          expect(new Set(groupOf.values()).size, where()).toBe(groupOf.size);
          expect(batches.results.length, where()).toBe(p.batch ? 1 : 0);
          if (p.batch)
            expect(batches.results[0], where()).toEqual({
              id: batchId,
              reverses_batch_id: p.batch.reverses,
              entry_count: p.entries.length,
            });
          expect(holds.results.length, where()).toBe(p.hold ? 1 : 0);
          const holdId = holds.results[0]?.id as number | undefined;
          if (p.hold)
            expect(holds.results[0], where()).toEqual({
              id: holdId,
              user_id: userIds[p.hold.u],
              wallet_id: walletIds[p.hold.w],
              amount_minor: p.hold.minor,
              status: "held",
              expires_at_s: p.hold.expiresAtS,
            });

          // The events the docs promise, in their order.
          const expected: { type: string; subject: string }[] = p.entries.map((_, i) => ({
            type: "transaction.created",
            subject: String(ids[i]),
          }));
          if (p.resolve?.status === "captured")
            expected.push({ type: "hold.captured", subject: String(p.resolve.hold) });
          if (p.resolve?.status === "voided")
            expected.push({ type: "hold.voided", subject: String(p.resolve.hold) });
          if (p.hold) expected.push({ type: "hold.placed", subject: String(holdId) });
          if (p.batch)
            expected.push(
              p.batch.reverses === null
                ? { type: "batch.completed", subject: String(batchId) }
                : { type: "batch.reversed", subject: String(p.batch.reverses) },
            );
          expect(events.results, where()).toEqual(expected);

          // The answer names what was written.
          switch (s.kind) {
            case "credit":
            case "debit":
              expect(ok, where()).toEqual({ transactionId: ids[0], userId: userIds[s.u] });
              break;
            case "transfer":
              expect(ok, where()).toMatchObject({
                debitId: ids[0],
                creditId: ids[1],
                fromUserId: userIds[s.from],
                toUserId: userIds[s.to],
              });
              break;
            case "hold":
              expect(ok, where()).toMatchObject({ status: "held", hold: { id: holdId } });
              break;
            case "capture":
            case "void":
              expect(ok, where()).toMatchObject({
                status: p.resolve!.status,
                transactionId: p.resolve!.status === "captured" ? ids[0] : null,
                hold: {
                  id: p.resolve!.hold,
                  capturedMinor: p.resolve!.status === "captured" ? p.entries[0]!.minor : null,
                },
              });
              break;
            case "reverse":
              expect(ok, where()).toEqual({ transactionIds: ids, reversedIds: p.reverses });
              break;
            case "batch":
              expect(ok, where()).toMatchObject({ batchId, transactionIds: ids });
              break;
            case "reverse-batch":
              expect(ok, where()).toEqual({
                batchId: p.batch!.reverses,
                reversalBatchId: batchId,
                transactionIds: ids,
                reversedIds: p.entries.map((e) => e.reversesId),
              });
              break;
          }
          model.apply(p, ids, holdId, batchId ?? undefined);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(MUST_REACH.filter((outcome) => !reached.has(outcome))).toEqual([]);
  });
});

// The shrunk sequences of what the model found, kept as plain tests.
describe("found by the model", () => {
  it("a debit past the largest balance's negative, from a balance imported below zero, is an overdraft", async () => {
    // Imported: user owes 5.000 on a wallet of 2 places storing 3. The largest amount it takes,
    // 999,999,999,999.99 (999,999,999,999,990 units), would leave it below -999,999,999,999,999.
    const admin = await makeAdmin();
    const [owes, other] = [await makeUser(), await makeUser()];
    const walletId = await storingMore(1);
    await importedEntry(owes.id, walletId, "DEBIT", 5_000, "5", 0, Math.floor(Date.now() / 1000));
    const ctx = serviceAs(as(admin));
    const amount = amountSent("999999999999.99");
    const counts = await tableCounts();
    const insufficient = { refused: { code: "insufficient_balance" } };
    const move = { walletId, amount, note: "" };
    expect(await outcomeOf(debit(ctx, { ...move, user: { id: owes.id }, requestId: "d" }))).toEqual(
      insufficient,
    );
    // A transfer's refusal names the movement refused, for the plugin's words (compat/transfers.ts).
    expect(
      await outcomeOf(
        transfer(ctx, { ...move, from: { id: owes.id }, to: { id: other.id }, requestId: "t" }),
      ),
    ).toEqual({
      refused: {
        code: "insufficient_balance",
        refused: { userId: owes.id, walletId, amountMinor: 999_999_999_999_990 },
      },
    });
    const operations: BatchOperation[] = [
      { ...move, type: "credit", user: { id: other.id }, amount: amountSent("1") },
      { ...move, type: "debit", user: { id: owes.id } },
    ];
    expect(
      await outcomeOf(postBatch(ctx, { requestId: unique("b"), balanced: false, operations })),
    ).toEqual({
      refused: { code: "batch_operation", index: 1, refused: "insufficient-balance" },
    });
    expect(await tableCounts()).toEqual(counts);
  });
});

/** A refusal's name for the tally: its code, and what a batch's operation was refused for. */
const refusalName = (r: RefusalReason): string =>
  r.code === "batch_operation"
    ? `${r.code}/${typeof r.refused === "string" ? r.refused : refusalName(r.refused)}`
    : r.code === "amount_refused"
      ? `${r.code}/${r.refusal}`
      : r.code;

const amountRefused = (refusal: string) =>
  ({ code: "amount_refused", refusal }) as unknown as RefusalReason;
/** Any value of a field, where the model cannot tell which the service names. */
const ANY = -1;

type Verdict = "insufficient-balance" | "balance-limit";
const single = (verdicts: Verdict[]): RefusalReason[] =>
  verdicts.map((v) =>
    v === "insufficient-balance" ? { code: "insufficient_balance" } : { code: "balance_limit" },
  );

/** A refusal as the model words it: every field it names (the service may say more). */
function matches(got: RefusalReason, expected: RefusalReason): boolean {
  const g = got as Record<string, unknown>;
  return Object.entries(expected).every(([k, v]) =>
    v !== null && typeof v === "object"
      ? typeof g[k] === "object" &&
        g[k] !== null &&
        matches(g[k] as RefusalReason, v as RefusalReason)
      : v === ANY || g[k] === v,
  );
}

// What every step of the plan shares: the options, the dump as read, the target database, the
// report being filled in, and the walk over the transaction posts in id order.
import {
  type Buckets,
  DamagedDumpError,
  DEFAULT_OPTIONS,
  groupBucket,
  type ImportOptions,
  type PostGroup,
  type WordPressCollector,
} from "../collect";
import { MAX_LISTED, newReport, type PlanReport } from "../report";
import { emptyTarget, type Target } from "../target";

export type StatementKind = "user" | "wallet" | "transaction" | "adjustment";

export type PlanInput = {
  collector: WordPressCollector;
  buckets: Buckets;
  options?: ImportOptions;
  /** targetState(...) of the database written to (emptyTarget() for a fresh one). */
  target?: Target;
  nowMs?: number;
  /** Takes each statement, in the order they must run. */
  emit?: (sql: string, kind: StatementKind) => void;
  progress?: (label: string, done: number, total: number) => void;
};

export type PostKind = "wallet" | "api-key" | "transaction" | "other";

export type PlanContext = Required<Omit<PlanInput, "options">> & {
  opts: Required<ImportOptions>;
  report: PlanReport;
  warn(text: string): void;
  /** "… and N more warnings" once the list is full. */
  moreWarnings: number;
  /** What a post is, by the names of its terms in the plugin's taxonomy. */
  kindOf(ttids: number[]): { kind: PostKind; names: string[] };
  /** Visits every transaction-type post in id order, one bucket at a time, with progress. */
  forEachPost(label: string, visit: (group: PostGroup) => void): void;
};

export function startPlan({
  collector,
  buckets,
  options = {},
  target = emptyTarget(),
  nowMs = Date.now(),
  emit = () => {},
  progress = () => {},
}: PlanInput): PlanContext {
  const opts = { ...DEFAULT_OPTIONS, ...options };
  const report = newReport(opts, collector);
  const ctx: PlanContext = {
    collector,
    buckets,
    target,
    nowMs,
    emit,
    progress,
    opts,
    report,
    moreWarnings: 0,
    warn: (text) => {
      if (report.warnings.length < MAX_LISTED) report.warnings.push(text);
      else ctx.moreWarnings++;
    },
    kindOf: () => ({ kind: "other", names: [] }),
    forEachPost: (label, visit) => {
      const indexes = buckets.indexes();
      indexes.forEach((b, i) => {
        progress(label, i, indexes.length);
        for (const group of groupBucket(buckets.read(b))) visit(group);
      });
      progress(label, indexes.length, indexes.length);
    },
  };
  ctx.kindOf = postKinds(ctx);
  return ctx;
}

/** Term names of the plugin's taxonomy by term_taxonomy_id, and what they make a post. */
function postKinds({ collector, opts, warn }: PlanContext) {
  const NS = opts.namespace.toUpperCase();
  const { taxonomy } = collector;
  const termOf = new Map<number, string>();
  for (const [ttid, t] of collector.taxonomies)
    if (t.taxonomy === taxonomy) {
      if (collector.repeatedTerms.has(t.termId))
        throw new DamagedDumpError(
          `${collector.prefix}terms holds term_id ${t.termId} twice, and the plugin's ${taxonomy} names it (a damaged dump)`,
        );
      termOf.set(ttid, String(collector.terms.get(t.termId) ?? "").toUpperCase());
    }
  if (termOf.size === 0) warn(`no terms of taxonomy ${taxonomy}: is --namespace right?`);
  return (ttids: number[]) => {
    const names = ttids.map((t) => termOf.get(t)).filter((n) => n !== undefined);
    const has = (n: string) => names.includes(n);
    const kind: PostKind =
      has("WALLETS") || has(`${NS} WALLETS`)
        ? "wallet"
        : has("API-KEYS")
          ? "api-key"
          : has("CREDIT") || has("DEBIT")
            ? "transaction"
            : "other";
    return { kind, names };
  };
}

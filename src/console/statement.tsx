// A user's statement on the console: a wallet and a date range (days in the site's time zone), its
// figures as GET /statements sums them (drawn exactly), and its CSV as GET /statements?format=csv
// writes it.

import type { Context } from "hono";
import { Hono } from "hono";
import * as v from "valibot";
import { isCalendarDay } from "../http/fields";
import { answerStatementCsv } from "../http/statement-csv";
import { siteTimeZone } from "../settings";
import { formatExact, mysqlDate, siteDayBounds } from "../wallet/rules";
import { openStatement, STATEMENT_CHUNK } from "../wallet/statements";
import { normalizeWalletId } from "../wallet/wallet-shape";
import { appContext, attempt, backRefused, type Outcome, refusalText } from "./api";
import type { ConsoleEnv } from "./env";
import type { Wallet } from "./page";
import { withIds } from "./path-ids";
import { queryOf, Text } from "./query";
import { BASE } from "./session";
import { Details, Empty, focused, inLabels, RequiredNote, ShownDay } from "./views";

const [FIRST_DAY, LAST_DAY] = ["1000-01-01", "9998-12-31"];

/**
 * A day a statement can cover: a calendar day of a year from 1000 to 9998, which no site time zone
 * takes past four digits (site-local times are read back as `YYYY-MM-DD hh:mm:ss`).
 */
const Day = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{3}-\d{2}-\d{2}$/),
  v.check((s) => s <= LAST_DAY && isCalendarDay(s)),
);

/** A day as the statement form sends it, to its first 20 characters (a day has 10); absent: "". */
const DayText = v.pipe(
  Text,
  v.transform((s) => s.slice(0, 20)),
);

/** The statement asked for: a wallet id (as the API reads one: any case, space trimmed) and days. */
const StatementQuery = v.object({
  wallet: v.pipe(Text, v.transform(normalizeWalletId)),
  from: DayText,
  to: DayText,
});

/** The statement's parameters the page was asked with (the pager keeps them), none empty. */
const askedStatement = (c: Context<ConsoleEnv>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(queryOf(c, StatementQuery)).filter(([, value]) => value !== ""),
  );

/** The days' fields' labels, by their names: a refusal's words name them so. */
const DAY_LABELS = { from: "From", to: "To" } as const;

/** Why the days make no statement: the field at fault and the words. */
type RangeProblem = { field: "from" | "to"; text: string };

/** Which of `from` and `to` is no day (the service judges the range they make); undefined: none. */
function dayProblem(from: string, to: string): RangeProblem | undefined {
  for (const [field, name, day] of [
    ["from", DAY_LABELS.from, from],
    ["to", DAY_LABELS.to, to],
  ] as const)
    if (!v.is(Day, day))
      return {
        field,
        text: `No statement: ${name} (${day}) is not a calendar day written YYYY-MM-DD, from ${FIRST_DAY} to ${LAST_DAY}.`,
      };
  return undefined;
}

/** The service's refusal of one of the days (`from` after `to`, or in the future), to show beside it. */
function refusedDay(outcome: Outcome<unknown>): RangeProblem | undefined {
  if (outcome.ok || outcome.reason?.code !== "invalid_field") return undefined;
  const { field, why } = outcome.reason;
  return field === "from" || field === "to"
    ? { field, text: `No statement: ${inLabels(why, DAY_LABELS)}.` }
    : undefined;
}

/** A statement's wallet and days. */
type StatementChoice = { walletId: string; from: string; to: string };

/**
 * The statement asked for on a user's page (`wallet`, `from`, `to`), its figures or why it has none
 * (`readFigures`), and the parameters it was asked with (the entries' pager keeps them). Unless
 * asked for, the days are this month so far and the wallet is the first the user has entries in
 * (`used`), else the first.
 */
export async function userStatement(
  c: Context<ConsoleEnv>,
  userId: number,
  wallets: Wallet[],
  used: (walletId: string) => boolean,
) {
  const today = mysqlDate(Math.floor(c.get("nowMs")() / 1000), siteTimeZone(c.env)).slice(0, 10);
  const asked = queryOf(c, StatementQuery);
  const fallback = (wallets.find((w) => used(w.id)) ?? wallets[0])?.id ?? "";
  const choice = {
    walletId: wallets.some((w) => w.id === asked.wallet) ? asked.wallet : fallback,
    from: asked.from || `${today.slice(0, 8)}01`,
    to: asked.to || today,
  };
  const read = await readFigures(c, userId, choice);
  return { choice, read, asked: askedStatement(c), timeZone: siteTimeZone(c.env) };
}

/**
 * The instants a choice's days span: from the first second of `from` to the last of `to`,
 * site-local. Days in order that hold no second at all (a day the zone skipped, as Pacific/Apia
 * skipped 2011-12-30) are one instant, half a second before that day would have begun: a range
 * inside one second, which holds no entry (the API's rule). Bounded by their seconds, they would
 * end before they start and be refused as a range whose from is after its to.
 */
function statementSpan(s: StatementChoice, zone: string) {
  const firstS = siteDayBounds(s.from, zone).firstS;
  const lastS = siteDayBounds(s.to, zone).lastS;
  if (s.from <= s.to && lastS < firstS)
    return { fromMs: firstS * 1000 - 500, toMs: firstS * 1000 - 500 };
  return { fromMs: firstS * 1000, toMs: lastS * 1000 };
}

/** The statement a choice names (statementSpan). */
function statementOf(
  c: Context<ConsoleEnv>,
  userId: number,
  s: StatementChoice,
  page: { offset: number; limit: number },
) {
  return openStatement(c.var.service, {
    userId,
    walletId: s.walletId,
    ...statementSpan(s, siteTimeZone(c.env)),
    page,
  });
}

/** The statement's figures (one entry's page: the figures cover the range), or why not. */
async function readFigures(c: Context<ConsoleEnv>, userId: number, s: StatementChoice) {
  if (s.walletId === "") return undefined;
  const problem = dayProblem(s.from, s.to);
  if (problem) return { ok: false as const, problem };
  const read = await attempt(c, () => statementOf(c, userId, s, { offset: 0, limit: 1 }));
  if (!read.ok)
    return { ok: false as const, problem: refusedDay(read), why: refusalText(read.refusal) };
  // Clamped to the last second that is over: the closing balance is the balance so far.
  const soFar = read.value.range.toS < siteDayBounds(s.to, siteTimeZone(c.env)).lastS;
  return { ok: true as const, st: read.value, soFar };
}

/**
 * A day of the statement's form, and under it why it makes no statement if it is the field at
 * fault. A day that is none (`2026-02-31`) is drawn in a text field as typed: a date field shows
 * such a value empty, as if nothing had been typed.
 */
function DayField(props: {
  name: "from" | "to";
  label: string;
  choice: StatementChoice;
  problem: RangeProblem | undefined;
  /** The statement was asked for: the words, if at this field, have focus as the page opens. */
  focus: boolean;
}) {
  const day = props.choice[props.name];
  const problem = props.problem?.field === props.name ? props.problem : undefined;
  const typed = problem !== undefined && !v.is(Day, day);
  // The field and its words together, so the words stand under it, as wide as it, and the row
  // of the form stays one row (console.css).
  return (
    <div class="field">
      <label>
        <span>{props.label}</span>
        <input
          type={typed ? "text" : "date"}
          name={props.name}
          value={day}
          required
          // The days the server takes: a date picker refuses others before the form is sent.
          min={typed ? undefined : FIRST_DAY}
          max={typed ? undefined : LAST_DAY}
          placeholder={typed ? "YYYY-MM-DD" : undefined}
          aria-invalid={problem ? "true" : undefined}
          aria-describedby={problem ? "statement-problem" : undefined}
        />
      </label>
      {problem && (
        <p id="statement-problem" class="notice error" role="alert" {...focused(props.focus)}>
          {problem.text}
        </p>
      )}
    </div>
  );
}

export function StatementSection(props: {
  userId: number;
  wallets: Wallet[];
  statement: Awaited<ReturnType<typeof userStatement>>;
}) {
  const { choice: s, read, timeZone, asked } = props.statement;
  const problem = read?.ok === false ? read.problem : undefined;
  // A statement asked for (by the form, or its CSV refused) is what the page opens for: its
  // figures, or why there are none, have focus as it opens, as a form's notice has, so a screen
  // reader reads them first and the browser shows them. The address has no fragment (#statement),
  // on which a browser focuses nothing.
  const shown = Object.keys(asked).length > 0;
  return (
    <section id="statement">
      <h2>Statement</h2>
      <p class="muted">Days in the site's time zone, {timeZone}.</p>
      <form class="inline" method="get" action={`${BASE}/users/${props.userId}`}>
        <RequiredNote />
        <label>
          <span>Wallet</span>
          <select name="wallet">
            {props.wallets.map((w) => (
              <option value={w.id} selected={w.id === s.walletId}>{`${w.name} (${w.id})`}</option>
            ))}
          </select>
        </label>
        <DayField name="from" label={DAY_LABELS.from} choice={s} problem={problem} focus={shown} />
        <DayField name="to" label={DAY_LABELS.to} choice={s} problem={problem} focus={shown} />
        <div class="buttons">
          <button type="submit">Show statement</button>
          {/* The CSV of the days in the form, as typed, whether or not they were shown yet. */}
          <button
            type="submit"
            class="secondary"
            formaction={`${BASE}/users/${props.userId}/statement.csv`}
          >
            Download CSV
          </button>
        </div>
      </form>
      {read === undefined ? (
        <Empty>No wallets yet.</Empty>
      ) : !read.ok ? (
        // Days that make no statement are told beside their field (DayField).
        !problem && (
          <p class="notice error" role="alert" {...focused(shown)}>
            {read.why}
          </p>
        )
      ) : (
        <Details
          label="Statement totals"
          focus={shown}
          num
          rows={[
            [
              <>
                Opening balance (<ShownDay day={s.from} />)
              </>,
              formatExact(read.st.openingMinor, read.st.wallet),
            ],
            ["In", formatExact(read.st.inMinor, read.st.wallet)],
            ["Out", formatExact(read.st.outMinor, read.st.wallet)],
            [
              <>
                Closing balance (<ShownDay day={s.to} />
                {read.soFar && ", so far"})
              </>,
              formatExact(read.st.closingMinor, read.st.wallet),
            ],
            ["Entries", read.st.count],
          ]}
        />
      )}
    </section>
  );
}

export const statementScreen = new Hono<ConsoleEnv>({ strict: false });

/** The CSV, as the API writes it for the signed-in operator, streamed. */
statementScreen.get(
  "/users/:id/statement.csv",
  withIds(["id"], async (c, { id }) => {
    const { wallet: walletId, from, to } = queryOf(c, StatementQuery);
    // Refused, back to the statement asked for, which then says the same: days that make none,
    // beside the field at fault (focused as the page opens), and nowhere else.
    const asked = `${BASE}/users/${id.ref}?${new URLSearchParams(askedStatement(c))}`;
    if (dayProblem(from, to)) return c.redirect(asked, 303);
    // Named by the days as the form chose them, in the site's time zone, checked above.
    const answered = await attempt(c, async () =>
      answerStatementCsv(
        appContext(c),
        await statementOf(c, id.id, { walletId, from, to }, { offset: 0, limit: STATEMENT_CHUNK }),
        { from, to },
      ),
    );
    if (answered.ok) return answered.value;
    if (refusedDay(answered)) return c.redirect(asked, 303);
    // Any other refusal is told above the page, whose notice takes focus as it opens.
    return backRefused(c, asked, "Statement", answered.refusal);
  }),
);

// One user: balances (held and available beside them), holds, balance charts, the forms that move
// money by hand (user-money.tsx: credit, debit, transfer, reverse; user-holds.tsx: capture or void
// a hold), signing the user out everywhere, statement (figures and CSV) and entries, each through
// the service's verbs as the signed-in operator.

import { type Context, Hono } from "hono";
import * as v from "valibot";
import type { EntryRow } from "../db/ledger";
import { availableBalances, listHolds } from "../wallet/holds";
import { notReversible } from "../wallet/movements";
import { userLedger } from "../wallet/operators";
import { formatExact, formatMoney } from "../wallet/rules";
import { endUserSessions } from "../wallet/sessions";
import { allWallets } from "../wallet/wallets";
import { attempt, backRefused } from "./api";
import { BatchLink } from "./batch";
import type { ConsoleEnv, Session } from "./env";
import { back, freshKey, noticeOf, PER_PAGE, plural, type Wallet } from "./page";
import { noSuch, withIds } from "./path-ids";
import { PageNumber, queryOf } from "./query";
import { BASE, endSession } from "./session";
import { StatementSection, userStatement } from "./statement";
import { BalancesSection, HOLDS_SHOWN, HoldsSection } from "./user-holds";
import {
  AMOUNT_FORM,
  Chart,
  Choice,
  Csrf,
  Field,
  type Notice,
  Page,
  Pager,
  type RefusedForm,
  RequiredNote,
  refusedForm,
  Table,
  userName,
  When,
} from "./views";

export const userScreen = new Hono<ConsoleEnv>({ strict: false });

/** The page of the user's entries, and of its holds. */
const PageQuery = v.object({ page: PageNumber, holds_page: PageNumber });

/** Everything a user's page shows, or null when there is no such user. */
async function loadUser(
  c: Context<ConsoleEnv>,
  userId: number,
  { page, holds_page: holdsPage }: v.InferOutput<typeof PageQuery>,
) {
  const ctx = c.var.service;
  const ws = await allWallets(ctx);
  // The entries through the same read the API's list uses (its records carry no balance-after or
  // request id, which an operator needs here). Each balance with what holds reserve of it in one
  // statement (availableBalances): the figures of one moment, whatever lands between the reads.
  const [ledger, available, holds] = await Promise.all([
    userLedger(ctx, { userId, offset: (page - 1) * PER_PAGE, limit: PER_PAGE, points: 200 }),
    attempt(c, () => availableBalances(ctx, userId)),
    attempt(c, () => listHolds(ctx, { userId, page: holdsPage, perPage: HOLDS_SHOWN })),
  ]);
  const { user, entries, reversed, series } = ledger;
  if (!entries.userExists || !user) return null;
  return {
    userId,
    page,
    user,
    wallets: ws,
    entries,
    reversed,
    series,
    statement: await userStatement(c, userId, ws, (walletId) => series.has(walletId)),
    // What the service refused to read (the user gone meanwhile), the page shows nothing of.
    available: available.ok ? available.value : [],
    holds: holds.ok ? holds.value.holds : [],
    holdsPage,
    holdsTotal: holds.ok ? holds.value.total : 0,
  };
}

type UserData = NonNullable<Awaited<ReturnType<typeof loadUser>>>;

export const MOVES = ["credit", "debit", "transfer"] as const;
export type Move = (typeof MOVES)[number];
/** "Credit", "Debit", "Transfer": a money form's heading and button, and its refusal's first word. */
export const moveLabel = (action: Move) => `${action[0]!.toUpperCase()}${action.slice(1)}`;

function MoneyForm(props: {
  userId: number;
  action: Move;
  wallets: Wallet[];
  session: Session;
  /** This form as it was refused, drawn again. */
  refused: RefusedForm;
}) {
  const label = moveLabel(props.action);
  const { refused } = props;
  return (
    <form class="stack card" method="post" action={`${BASE}/users/${props.userId}/${props.action}`}>
      <h3>{label}</h3>
      <Csrf
        session={props.session}
        fields={{ request_id: refused.kept.request_id ?? freshKey() }}
      />
      <RequiredNote />
      <Choice
        label="Wallet"
        name="wallet_id"
        refused={refused}
        required
        options={(kept) => (
          <>
            {/* With more than one wallet, the operator chooses: a default would move the wrong currency. */}
            {props.wallets.length > 1 && <option value="">Choose a wallet</option>}
            {props.wallets.map((w) => (
              <option value={w.id} selected={w.id === kept}>{`${w.name} (${w.id})`}</option>
            ))}
          </>
        )}
      />
      <Field
        label="Amount"
        name="amount"
        refused={refused}
        hint={{ id: `${props.action}-amount-hint`, text: `In ${AMOUNT_FORM}` }}
        inputmode="decimal"
        required
        autocomplete="off"
      />
      {props.action === "transfer" && (
        <Field
          label="To user"
          name="to_user_id"
          refused={refused}
          inputmode="numeric"
          required
          autocomplete="off"
          placeholder="user id"
          hint={{ id: "to-user-hint", text: "A user's id, as the Users list shows it." }}
        />
      )}
      <Field label="Note" name="note" refused={refused} autocomplete="off" />
      <button type="submit">{label}</button>
    </form>
  );
}

/** An entry's type, and what wrote it: a reversal (of which entry), or a half of a transfer. */
export const typeOf = (e: EntryRow["entry"]) =>
  e.reversesId
    ? `${e.txnType} (reversal of ${e.reversesId})`
    : e.transferId
      ? `${e.txnType} (transfer)`
      : e.txnType;

/** An entry's type as a table shows it, with a link to its batch, if it has one. */
export const EntryType = ({ e }: { e: EntryRow["entry"] }) => (
  <>
    {typeOf(e)}
    {e.batchId ? (
      <>
        {" "}
        <BatchLink id={e.batchId} />
      </>
    ) : null}
  </>
);

function Entries(props: { d: UserData }) {
  const { userId, page, entries, statement, reversed, holdsPage } = props.d;
  // The holds' page stays as it is while the entries turn theirs.
  const kept: Record<string, string> = holdsPage > 1 ? { holds_page: String(holdsPage) } : {};
  return (
    <section id="entries">
      <h2>Entries</h2>
      <Table
        class="stacked entries"
        cols={[
          "ID",
          "Date (UTC)",
          "Type",
          "Wallet",
          "Amount",
          "Balance after",
          "Note",
          "Request id",
        ]}
        num={["Amount", "Balance after"]}
        lines={["Note", "Request id", "Action"]}
        actions
        // A page past the last has none either: the pager says so.
        empty={entries.total === 0 ? "No entries yet." : null}
      >
        {entries.rows.map((row) => {
          const { entry: e } = row;
          return (
            <tr>
              <td>{e.id}</td>
              <td>
                <When ms={e.createdAtS * 1000} />
              </td>
              <td>
                <EntryType e={e} />
              </td>
              {/* Which wallet moved: its symbol alone may be another's too (₦ of ngn and of
                  ngn_savings), and the statement above is of one wallet, the entries of all. */}
              <td>{e.walletId}</td>
              <td class="num">{formatExact(e.amountMinor, row)}</td>
              <td class="num">{formatExact(e.balanceAfterMinor, row)}</td>
              {/* The note a sentence wide, the request id whole on one line, since any of its
                  characters may be the one that tells two apart; stacked (console.css), each
                  on a line of its own under the figures (a request id longer than the line
                  broken), Reverse beneath them. */}
              <td class="note line">{e.note}</td>
              <td class="line">
                <code>{e.requestId}</code>
              </td>
              <td class="line">
                {/* Offered only where the ledger would take it. */}
                {reversed.has(e.id) ? (
                  "reversed"
                ) : notReversible([e]) ? null : (
                  <a
                    href={`${BASE}/users/${userId}/reverse/${e.id}`}
                    aria-label={`Reverse transaction ${e.id}`}
                  >
                    Reverse
                  </a>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      <Pager
        page={page}
        pages={Math.ceil(entries.total / PER_PAGE)}
        path={`${BASE}/users/${userId}`}
        query={{ ...statement.asked, ...kept }}
        at="entries"
      />
    </section>
  );
}

function UserView(props: { d: UserData; session: Session; notice: Notice }) {
  const { d, session } = props;
  const { userId, user, wallets: ws, series } = d;
  return (
    <Page
      title={userName(userId, user.username)}
      session={session}
      current="users"
      notice={props.notice}
    >
      <BalancesSection wallets={ws} available={d.available} />
      <HoldsSection
        userId={userId}
        holds={d.holds}
        session={session}
        notice={props.notice}
        pager={{
          page: d.holdsPage,
          pages: Math.ceil(d.holdsTotal / HOLDS_SHOWN),
          query: { ...d.statement.asked, page: String(d.page) },
        }}
      />
      {ws.map((w) => {
        const line = series.get(w.id);
        if (!line) return null;
        return (
          <section>
            <h2>{w.name}: balance over time</h2>
            <Chart
              title={`${w.name} balance after each of the last ${line.length} entries (UTC)`}
              xSpan={[line[0]!.at, line.at(-1)!.at]}
              yLabel={`balance (${w.symbol})`}
              yFormat={(y) => formatMoney(y, w)}
              lines={[{ label: "balance", points: line.map((p, k) => ({ x: k, y: p.after })) }]}
            />
          </section>
        );
      })}
      <section>
        <h2>Move money</h2>
        <div class="forms">
          {MOVES.map((action) => (
            <MoneyForm
              userId={userId}
              action={action}
              wallets={ws}
              session={session}
              refused={refusedForm(props.notice, action)}
            />
          ))}
        </div>
      </section>
      <section>
        <h2>Sessions</h2>
        <form
          class="stack card"
          method="post"
          action={`${BASE}/users/${userId}/sessions/revoke`}
          data-confirm={
            userId === session.principal.userId
              ? `Sign yourself (${user.username}) out everywhere? Every access token and console session of yours stops working, this one too.`
              : `Sign ${user.username} out everywhere? Every access token and console session of this user stops working.`
          }
        >
          <p>
            Signs <span class="name">{user.username}</span> out everywhere: every access token and
            console session of this user stops working within seconds. API keys are not touched
            (revoke them under API keys).
          </p>
          <Csrf session={session} />
          <button class="danger" type="submit">
            Sign <span class="name">{user.username}</span> out everywhere
          </button>
        </form>
      </section>
      <StatementSection userId={userId} wallets={ws} statement={d.statement} />
      <Entries d={d} />
    </Page>
  );
}

userScreen.get(
  "/users/:id",
  withIds(["id"], async (c, { id }) => {
    const userId = id.id;
    const d = await loadUser(c, userId, queryOf(c, PageQuery));
    if (!d) return noSuch(c, "user", userId);
    return c.html(<UserView d={d} session={c.var.session} notice={await noticeOf(c)} />);
  }),
);

userScreen.post(
  "/users/:id/sessions/revoke",
  withIds(["id"], async (c, { id }) => {
    const ended = await attempt(c, () => endUserSessions(c.var.service, { id: id.id }));
    const to = `${BASE}/users/${id.ref}`;
    if (!ended.ok) return backRefused(c, to, "Sign-out", ended.refusal);
    const text = `Signed out everywhere: ${plural(ended.value.revoked, "session")} ended.`;
    // The operator's own sessions include this one: the sign-in page says why it is shown.
    if (id.id !== c.var.session.principal.userId) return back(c, to, { kind: "ok", text });
    endSession(c);
    return back(c, `${BASE}/sign-in`, { kind: "ok", text: `${text} Sign in again.` });
  }),
);

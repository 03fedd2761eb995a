// One user: balances (held and available beside them), holds, statement (figures and CSV), balance
// chart, entries, and money moved by hand (credit, debit, transfer, reverse, capture or void a hold),
// each through the service's verbs as the signed-in operator.

import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import * as v from "valibot";
import { sameSecret } from "../auth/same-secret";
import { seal, unseal } from "../auth/sealed";
import type { EntryRow } from "../db/ledger";
import { jwtSecret } from "../http/auth";
import { EntryParams, movementOf, ReverseParams, TransferParams } from "../http/fields";
import { parseFields } from "../http/validation";
import { spendMoneyShare } from "../wallet/context";
import { availableBalances, listHolds } from "../wallet/holds";
import {
  credit,
  debit,
  type MoveInput,
  notReversible,
  resolveTransfer,
  reverse,
  transfer,
} from "../wallet/movements";
import { reversedEntries, userLedger } from "../wallet/operators";
import { formatExact, formatMoney } from "../wallet/rules";
import { endUserSessions } from "../wallet/sessions";
import { entryOfKind, keyedEntryId, readTransaction } from "../wallet/transactions";
import { allWallets } from "../wallet/wallets";
import { attempt, attemptMoney, backRefused } from "./api";
import type { ConsoleEnv, Fields, Session } from "./env";
import { back, field, freshKey, keptFields, noticeOf, PER_PAGE, plural, type Wallet } from "./page";
import { notFound, type PathId, withIds } from "./path-ids";
import { PageNumber, queryOf, Text } from "./query";
import { BASE, endSession } from "./session";
import {
  askedStatement,
  readStatementFigures,
  StatementSection,
  statementChoice,
} from "./statement";
import { AvailableTable, HOLDS_SHOWN, HoldsSection } from "./user-holds";
import {
  Chart,
  Confirmation,
  Csrf,
  Details,
  day,
  type Notice,
  Page,
  Pager,
  Table,
  userName,
  When,
} from "./views";

export const userScreen = new Hono<ConsoleEnv>({ strict: false });

/** The page of the user's entries. */
const PageQuery = v.object({ page: PageNumber });

/** What a verb read, or `empty` when it refused (the page then shows nothing for it). */
const orEmpty = async <T,>(c: Context<ConsoleEnv>, read: () => Promise<T>, empty: NoInfer<T>) => {
  const outcome = await attempt(c, read);
  return outcome.ok ? outcome.value : empty;
};

/** Everything a user's page shows, or null when there is no such user. */
async function loadUser(c: Context<ConsoleEnv>, userId: number, page: number) {
  const ctx = c.var.service;
  const ws = await allWallets(ctx);
  // The entries through the same read the API's list uses (its records carry no balance-after or
  // request id, which an operator needs here). Each balance with what holds reserve of it in one
  // statement (availableBalances): the figures of one moment, whatever lands between the reads.
  const [ledger, available, holds] = await Promise.all([
    userLedger(ctx, userId, { offset: (page - 1) * PER_PAGE, limit: PER_PAGE }, 200),
    orEmpty(c, () => availableBalances(ctx, userId), []),
    orEmpty(c, () => listHolds(ctx, { userId, page: 1, perPage: HOLDS_SHOWN }), {
      holds: [],
      total: 0,
    }),
  ]);
  const { user, entries: statement, reversed, series } = ledger;
  if (!statement.userExists || !user) return null;
  // Unless one is asked for, the statement is of a wallet the user has entries in.
  const choice = statementChoice(c, ws, (walletId) => series.has(walletId));
  const figures = await readStatementFigures(c, userId, choice);
  return {
    userId,
    page,
    asked: askedStatement(c),
    user,
    wallets: ws,
    choice,
    statement,
    reversed,
    series,
    figures,
    timeZone: c.env.SITE_TIMEZONE ?? "",
    available,
    holds: holds.holds,
  };
}

type UserData = NonNullable<Awaited<ReturnType<typeof loadUser>>>;

const MOVES = ["credit", "debit", "transfer"] as const;
type Move = (typeof MOVES)[number];
/** "Credit", "Debit", "Transfer": a money form's heading and button, and its refusal's first word. */
const moveLabel = (action: Move) => `${action[0]!.toUpperCase()}${action.slice(1)}`;

function MoneyForm(props: {
  userId: number;
  action: Move;
  wallets: Wallet[];
  session: Session;
  /** The fields of this form as it was refused, drawn again. */
  kept?: Record<string, string>;
}) {
  const label = moveLabel(props.action);
  const kept = props.kept ?? {};
  return (
    <form class="stack card" method="post" action={`${BASE}/users/${props.userId}/${props.action}`}>
      <h3>{label}</h3>
      <Csrf session={props.session} />
      <input type="hidden" name="request_id" value={kept.request_id ?? freshKey()} />
      <label>
        Wallet
        <select name="wallet_id" required>
          {/* With more than one wallet, the operator chooses: a default would move the wrong currency. */}
          {props.wallets.length > 1 && <option value="">Choose a wallet</option>}
          {props.wallets.map((w) => (
            <option value={w.id} selected={w.id === kept.wallet_id}>{`${w.name} (${w.id})`}</option>
          ))}
        </select>
      </label>
      <label>
        Amount
        <input name="amount" inputmode="decimal" required autocomplete="off" value={kept.amount} />
      </label>
      {props.action === "transfer" && (
        <label>
          To user
          <input
            name="to_user_id"
            inputmode="numeric"
            required
            autocomplete="off"
            placeholder="user id"
            value={kept.to_user_id}
          />
        </label>
      )}
      <label>
        Note
        <input name="note" autocomplete="off" value={kept.note} />
      </label>
      <button type="submit">{label}</button>
    </form>
  );
}

/** An entry's type, and what wrote it: a reversal (of which entry), or a half of a transfer. */
const typeOf = (e: EntryRow["entry"]) =>
  e.reversesId
    ? `${e.txnType} (reversal of ${e.reversesId})`
    : e.transferId
      ? `${e.txnType} (transfer)`
      : e.txnType;

function Entries(props: { d: UserData }) {
  const { userId, page, asked, statement, reversed } = props.d;
  return (
    <section id="entries">
      <h2>Entries</h2>
      <Table
        cols={["ID", "Date (UTC)", "Type", "Amount", "Balance after", "Note", "Request id"]}
        num={["Amount", "Balance after"]}
        actions
      >
        {statement.rows.map((row) => {
          const { entry: e } = row;
          return (
            <tr>
              <td>{e.id}</td>
              <td>
                <When ms={e.createdAtS * 1000} />
              </td>
              <td>
                {typeOf(e)}
                {e.batchId ? (
                  <>
                    {" "}
                    <a href={`${BASE}/batches/${e.batchId}`}>batch {e.batchId}</a>
                  </>
                ) : null}
              </td>
              <td class="num">{formatExact(e.amountMinor, row)}</td>
              <td class="num">{formatExact(e.balanceAfterMinor, row)}</td>
              {/* On a phone the table scrolls sideways, its row as tall as its date (console.css): the
                  note a sentence wide, the request id whole on one line, since any of its
                  characters may be the one that tells two apart. */}
              <td class="note">{e.note}</td>
              <td>
                <code>{e.requestId}</code>
              </td>
              <td>
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
        pages={Math.ceil(statement.total / PER_PAGE)}
        path={`${BASE}/users/${userId}`}
        query={asked}
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
      <section>
        <h2>Balances</h2>
        <table>
          <tbody>
            {ws.map((w) => (
              <tr>
                <th>{w.name}</th>
                <td class="num">
                  {formatExact(d.available.find((r) => r.wallet.id === w.id)?.balanceMinor ?? 0, w)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <AvailableTable wallets={ws} available={d.available} />
      </section>
      <HoldsSection userId={userId} holds={d.holds} session={session} notice={props.notice} />
      {ws.map((w) => {
        const line = series.get(w.id);
        if (!line) return null;
        return (
          <section>
            <h2>{w.name}: balance over time</h2>
            <Chart
              title={`${w.name} balance after each of the last ${line.length} entries (UTC days)`}
              xLabels={[day(line[0]!.at), day(line.at(-1)!.at)]}
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
              kept={keptFields(props.notice, action)}
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
      <StatementSection
        userId={userId}
        wallets={ws}
        choice={d.choice}
        read={d.figures}
        timeZone={d.timeZone}
      />
      <Entries d={d} />
    </Page>
  );
}

userScreen.get(
  "/users/:id",
  withIds(["id"], async (c, { id }) => {
    const userId = id.id;
    const d = await loadUser(c, userId, queryOf(c, PageQuery).page);
    if (!d)
      return c.html(
        <Page
          title="No such user"
          session={c.var.session}
          current="users"
          notice={await noticeOf(c)}
        >
          <p>
            There is no user {userId}. <a href={`${BASE}/users`}>All users</a>
          </p>
        </Page>,
        404,
      );
    return c.html(<UserView d={d} session={c.var.session} notice={await noticeOf(c)} />);
  }),
);

/** A money form as a verb's input: a transfer's recipient is `to`. */
type Movement = MoveInput & { user: { id: number }; to?: { id: number } };

/** A money form's fields decoded as POST /credits, /debits or /transfers decodes its body. */
function moveOf(action: Move, userId: number, form: Fields): Movement {
  const sent = Object.fromEntries(
    ["wallet_id", "amount", "request_id", "note"].map((k) => [k, field(form, k)]),
  );
  if (action !== "transfer") {
    const f = parseFields(EntryParams, { ...sent, user_id: userId });
    return { user: { id: f.user_id }, ...movementOf(f), requestId: f.request_id };
  }
  const f = parseFields(TransferParams, {
    ...sent,
    from_user_id: userId,
    to_user_id: field(form, "to_user_id"),
  });
  return {
    user: { id: f.from_user_id },
    to: { id: f.to_user_id },
    ...movementOf(f),
    requestId: f.request_id,
  };
}

/** The movement made by the verb of the form's action. */
const moveWith = (c: Context<ConsoleEnv>, action: Move, m: Movement) =>
  m.to
    ? transfer(c.var.service, { ...m, from: m.user, to: m.to })
    : (action === "credit" ? credit : debit)(c.var.service, m);

/**
 * Whether entry `id` (the one holding a money form's key) is what this form, as sent now, would
 * have written: the user's entry of the form's type, wallet and amount, and for a transfer its
 * receiving half the form's recipient's. A key sent again with a field changed (a transfer to
 * someone else) moved nothing of what the form asks now, and is refused in words.
 */
async function writtenBy(c: Context<ConsoleEnv>, action: Move, m: Movement, id: number) {
  const found = await attempt(c, () => readTransaction(c.var.service, { id, ref: String(id) }));
  const e = found.ok ? found.value.entry : undefined;
  const same =
    e?.userId === m.user.id &&
    e.txnType === (action === "credit" ? "CREDIT" : "DEBIT") &&
    e.walletId === m.walletId &&
    e.amountText === m.amount.sent;
  if (!same || !m.to) return same;
  const half = await attempt(c, () => entryOfKind(c.var.service, { kind: "transfers", id: e.id }));
  const partnerId = half.ok ? half.value?.partnerId : null;
  if (partnerId == null) return false;
  const partner = await attempt(c, () =>
    entryOfKind(c.var.service, { kind: "transfers", id: partnerId }),
  );
  return partner.ok && partner.value?.entry.userId === m.to.id;
}

/** A money form's fields as typed, to draw it again: its key too, unless `withKey` is false. */
const typedFields = (form: Fields, withKey: boolean) => {
  const keys = ["wallet_id", "amount", "to_user_id", "note", ...(withKey ? ["request_id"] : [])];
  return Object.fromEntries(
    keys.map((k) => [k, field(form, k)]).filter(([, value]) => value !== ""),
  );
};

/** A money form sent again after it moved the money: what its notice says. */
const ALREADY_DONE = "Already done: this form was sent before, and the money moved once.";

/**
 * Whether this transfer form moved its money already: its key holds the very transfer it asks for
 * (its confirmation confirmed, then shown again by Back or a reload). Unknown (a busy database): no.
 */
async function movedBefore(c: Context<ConsoleEnv>, id: PathId, form: Fields) {
  const seen = await attemptMoney(c, async () => {
    const m = moveOf("transfer", id.id, form);
    const taken = await keyedEntryId(c.var.service, { userId: m.user.id, requestId: m.requestId });
    return taken !== undefined && (await writtenBy(c, "transfer", m, taken));
  });
  return seen.ok && seen.value;
}

const ASKED_PURPOSE = "wallet-ledger console transfer asked v1";

/**
 * A transfer form as its user's page sends it, before any money moves: a redirect (303) to its
 * confirmation, a page of its own (`transferAsked`), so a reload of it, or Back to it, fetches it
 * and posts nothing. The form's fields ride in its address, sealed (AES-GCM, a key derived from
 * JWT_SECRET) with the user's id and the session's CSRF token: only a form this session sent shows
 * a confirmation, never a link someone else made. Cancel (`step=cancel`) brings the form back as
 * typed; a form whose key already moved its money is told so, never asked again nor "cancelled";
 * one the ledger would refuse is refused at once. Nothing is written either way.
 */
async function askTransfer(c: Context<ConsoleEnv>, id: PathId) {
  const { form } = c.var;
  const userPage = `${BASE}/users/${id.ref}`;
  const fields = typedFields(form, true);
  const done = await movedBefore(c, id, form);
  if (field(form, "step") === "cancel")
    return done
      ? back(c, userPage, {
          kind: "error",
          text: "Not cancelled: this transfer was confirmed before, and the money moved once. Reverse it to undo it.",
        })
      : back(c, userPage, {
          kind: "ok",
          text: "Transfer cancelled: nothing moved.",
          refused: { form: "transfer", fields },
        });
  if (done) return back(c, userPage, { kind: "ok", text: ALREADY_DONE });
  const read = await resolveAsked(c, id, form);
  if (!read.ok) return read.answer;
  // The recipient as the ledger read it: the id as typed may lead with any number of zeros, and
  // the address must stay short enough for a browser and Cloudflare (16 KB).
  const asked = { ...fields, to_user_id: String(read.value.to.id) };
  const held = JSON.stringify({ session: c.var.session.csrf, userId: id.id, fields: asked });
  const ask = await seal(held, jwtSecret(c), ASKED_PURPOSE);
  return c.redirect(`${userPage}/transfer?ask=${encodeURIComponent(ask)}`, 303);
}

/** The transfer a form asks for, read by the verb that moves it; refused, the way back to the form. */
async function resolveAsked(c: Context<ConsoleEnv>, id: PathId, form: Fields) {
  const read = await attemptMoney(c, () => {
    const m = moveOf("transfer", id.id, form);
    return resolveTransfer(c.var.service, { ...m, from: m.user, to: m.to! });
  });
  if (read.ok) return read;
  const refused = { form: "transfer", fields: typedFields(form, true) };
  const answer = await backRefused(c, `${BASE}/users/${id.ref}`, "Transfer", read.refusal, refused);
  return { ok: false as const, answer };
}

/** The fields of the transfer form `ask` seals, when it is this session's, for this user. */
async function askedFields(c: Context<ConsoleEnv>, id: PathId, ask: string) {
  const opened = ask && (await unseal(ask, jwtSecret(c), ASKED_PURPOSE));
  if (!opened) return undefined;
  const held = JSON.parse(opened) as { session: string; userId: number; fields: Fields };
  return sameSecret(held.session, c.var.session.csrf) && held.userId === id.id
    ? held.fields
    : undefined;
}

const AskQuery = v.object({ ask: Text });

/**
 * A transfer's confirmation: it names both users as the ledger reads the id typed (a mistyped one
 * reaches a stranger), the wallet and the amount as it would write them. Its Confirm sends the same
 * fields, key included, with `step=confirm`; its Cancel, and a refusal (no such user, an amount the
 * wallet cannot hold), bring the form back as typed. Read again at each visit: once the transfer
 * moved (Back to it after confirming), the user's page says so instead.
 */
async function transferAsked(c: Context<ConsoleEnv>, id: PathId) {
  const form = await askedFields(c, id, queryOf(c, AskQuery).ask);
  const userPage = `${BASE}/users/${id.ref}`;
  if (!form)
    return c.html(
      <Page title="Transfer" session={c.var.session} current="users">
        <section class="stack card">
          <p>
            No transfer is waiting to be confirmed here: send the user's Transfer form, and its
            confirmation follows. The user's entries show what moved.
          </p>
          <a href={userPage}>Back to the user</a>
        </section>
      </Page>,
    );
  if (await movedBefore(c, id, form)) return back(c, userPage, { kind: "ok", text: ALREADY_DONE });
  const read = await resolveAsked(c, id, form);
  if (!read.ok) return read.answer;
  const { from, to, wallet, amount: moved } = read.value;
  const amount = formatExact(moved.amountMinor, wallet);
  return c.html(
    <Page title={`Transfer ${amount} to ${to.username}?`} session={c.var.session} current="users">
      <Confirmation
        session={c.var.session}
        action={`${userPage}/transfer`}
        label="Transfer"
        rows={[
          ["From", userName(from.id, from.username)],
          ["To", userName(to.id, to.username)],
          ["Wallet", `${wallet.name} (${wallet.id})`],
          ["Amount", amount],
          ["Note", field(form, "note")],
        ]}
        fields={form}
        confirm={
          <button type="submit" name="step" value="confirm">
            Transfer {amount} to <span class="name">{to.username}</span>
          </button>
        }
        cancel={
          <button type="submit" name="step" value="cancel" class="secondary">
            Cancel
          </button>
        }
      >
        <p>
          Nothing has moved yet. Check that the user above is the one meant: a transfer is undone
          only by reversing it.
        </p>
      </Confirmation>
    </Page>,
  );
}

userScreen.get(
  "/users/:id/transfer",
  withIds(["id"], (c, { id }) => transferAsked(c, id)),
);

const move = (action: Move) =>
  userScreen.post(
    `/users/:id/${action}`,
    withIds(["id"], async (c, { id }) => {
      const { form } = c.var;
      // A transfer moves money only from its confirmation page's Confirm.
      if (action === "transfer" && field(form, "step") !== "confirm") return askTransfer(c, id);
      let movement: Movement | undefined;
      const moved = await attemptMoney(c, async () => {
        await spendMoneyShare(c.var.service);
        movement = moveOf(action, id.id, form);
        return moveWith(c, action, movement);
      });
      const to = `${BASE}/users/${id.ref}`;
      if (moved.ok) {
        const { value } = moved;
        // What moved as the ledger wrote it, in the wallet's figures, not the text typed (`007`),
        // and for a credit or a debit which way and which entry; the text typed if the database
        // is too busy to say (the money moved all the same).
        const entryId = "debitId" in value ? value.debitId : value.transactionId;
        const written = await attemptMoney(c, () =>
          readTransaction(c.var.service, { id: entryId, ref: String(entryId) }),
        );
        const amount = written.ok
          ? formatExact(written.value.entry.amountMinor, written.value)
          : field(form, "amount");
        const walletId = field(form, "wallet_id");
        // Whom a transfer went to, as the ledger read the id typed: the sender's page shows no
        // recipient anywhere else, so a mistyped one would go unseen.
        return back(c, to, {
          kind: "ok",
          text:
            "toUsername" in value
              ? `Transfer Action Completed: ${amount} (${walletId}) to ${userName(value.toUserId, value.toUsername)}.`
              : `Transaction Completed: ${amount} ${action === "credit" ? "credited" : "debited"} (${walletId}, transaction ${entryId}).`,
        });
      }
      // The same form sent twice (a double click, a retried submit): the first one moved the money.
      // Only an entry this very form would have written says so; a key a hold, a batch or another
      // movement holds is refused in words, since this form moved nothing. A busy database while
      // looking leaves it unknown: told as such, the form keeps its key.
      const taken =
        moved.reason?.code === "transaction_exists" ? moved.reason.existingId : undefined;
      const repeat =
        taken !== undefined && movement
          ? await attemptMoney(c, () => writtenBy(c, action, movement!, taken))
          : undefined;
      if (repeat?.ok && repeat.value) return back(c, to, { kind: "ok", text: ALREADY_DONE });
      const refusal = repeat?.ok === false ? repeat.refusal : moved.refusal;
      // The form keeps its key unless the key is taken (409): a retry of a busy database's unknown
      // outcome then moves the money at most once.
      return backRefused(c, to, moveLabel(action), refusal, {
        form: action,
        fields: typedFields(form, refusal.status !== 409),
      });
    }),
  );
for (const action of MOVES) move(action);

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

userScreen.get(
  "/users/:id/reverse/:txn",
  withIds(["id", "txn"], async (c, ids) => {
    const [id, txn] = [ids.id.ref, ids.txn.ref];
    // Only a transaction of this user's is offered for reversal.
    const found = await attempt(c, () => readTransaction(c.var.service, ids.txn));
    if (!found.ok || found.value.entry.userId !== ids.id.id) return notFound(c);
    const e = found.value.entry;
    // An entry the ledger would refuse to reverse is shown without the form.
    const why = notReversible([e]);
    const refused = why
      ? `Transaction ${txn} cannot be reversed: ${why}.`
      : (await reversedEntries(c.var.service, [e.id])).has(e.id)
        ? `Transaction ${txn} was already reversed.`
        : undefined;
    const details: [string, Child][] = [
      ["Type", typeOf(e)],
      ["Amount", formatExact(e.amountMinor, found.value)],
      ["Wallet", e.walletId],
      ["Date (UTC)", <When ms={e.createdAtS * 1000} />],
      ["Note", e.note],
      ["Request id", e.requestId],
    ];
    if (refused)
      return c.html(
        <Page title={`Transaction ${txn}`} session={c.var.session} current="users">
          <section class="stack card">
            <Details label={`Transaction ${txn}`} rows={details} />
            <p>{refused}</p>
            <a href={`${BASE}/users/${id}`}>Back to the user</a>
          </section>
        </Page>,
      );
    return c.html(
      <Page title={`Reverse transaction ${txn}?`} session={c.var.session} current="users">
        <Confirmation
          session={c.var.session}
          action={`${BASE}/users/${id}/reverse/${txn}`}
          label={`Transaction ${txn}`}
          rows={details}
          fields={{ request_id: freshKey() }}
          confirm={
            <button class="danger" type="submit">
              Reverse transaction {txn}
            </button>
          }
          cancel={<a href={`${BASE}/users/${id}`}>Cancel</a>}
        >
          <p>
            This writes the opposite entry
            {e.transferId ? ", for both halves of this transfer (the other user's too)" : ""}. It
            cannot be undone, and a transaction is reversed at most once.
          </p>
          <label>
            Note
            <input name="note" autocomplete="off" />
          </label>
        </Confirmation>
      </Page>,
    );
  }),
);
userScreen.post(
  "/users/:id/reverse/:txn",
  withIds(["id", "txn"], async (c, { id, txn }) => {
    const { form } = c.var;
    const reversed = await attempt(c, async () => {
      await spendMoneyShare(c.var.service);
      const f = parseFields(ReverseParams, {
        request_id: field(form, "request_id"),
        note: field(form, "note"),
      });
      // A transaction of this page's user only, as the confirmation page offers it.
      return reverse(c.var.service, {
        ...txn,
        requestId: f.request_id,
        note: f.note,
        userId: id.id,
      });
    });
    const to = `${BASE}/users/${id.ref}`;
    if (reversed.ok) return back(c, to, { kind: "ok", text: `Transaction ${txn.ref} reversed.` });
    // The same confirmation sent twice (a double click): its key holds the reversal of this very
    // transaction, which the first one wrote.
    const reason = reversed.reason;
    const taken = reason?.code === "transaction_exists" ? reason.existingId : undefined;
    const holder =
      taken === undefined
        ? undefined
        : await attempt(c, () => readTransaction(c.var.service, { id: taken, ref: String(taken) }));
    if (holder?.ok && holder.value.entry.reversesId === txn.id)
      return back(c, to, {
        kind: "ok",
        text: `Already done: this form was sent before, and transaction ${txn.ref} was reversed once.`,
      });
    return backRefused(c, to, "Reversal", reversed.refusal);
  }),
);

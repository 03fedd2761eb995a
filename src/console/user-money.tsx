// Money moved by hand on a user's page: credit, debit and transfer, each through a confirmation
// page of its own, and reversal, each through the service's verbs as the signed-in operator, each
// form moving its money once however often it is sent.

import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import * as v from "valibot";
import { sameSecret } from "../auth/same-secret";
import { seal, unseal } from "../auth/sealed";
import type { EntryRow } from "../db/ledger";
import { jwtSecret } from "../http/auth";
import { EntryParams, movementOf, ReverseParams, TransferParams } from "../http/fields";
import { parseFields, parseMoneyFields } from "../http/validation";
import { spendMoneyShare } from "../wallet/context";
import {
  credit,
  debit,
  type MoveInput,
  notReversible,
  resolveMove,
  resolveTransfer,
  reverse,
  transfer,
} from "../wallet/movements";
import { reversedEntries } from "../wallet/operators";
import { entryIsMovement, entryReverses } from "../wallet/repeats";
import { formatExact } from "../wallet/rules";
import { keyedEntryId, readTransaction } from "../wallet/transactions";
import { attempt, attemptMoney, backRefused, type Outcome } from "./api";
import type { ConsoleEnv, Fields, Session } from "./env";
import { back, field, fieldsOf, freshKey } from "./page";
import { notFound, type PathId, withIds } from "./path-ids";
import { queryOf, Text } from "./query";
import { BASE } from "./session";
import { MOVES, type Move, moveLabel, typeOf } from "./user";
import { Confirmation, Details, Field, Page, userName, When } from "./views";

export const moneyScreen = new Hono<ConsoleEnv>({ strict: false });

/** A money form as a verb's input: a transfer's recipient is `to`. */
type Movement = MoveInput & { user: { id: number }; to?: { id: number } };

/**
 * A money form's fields decoded as POST /credits, /debits or /transfers decodes its body: every
 * field error together, the wallet's (does it exist, does the amount fit it) and a transfer to the
 * sender itself included, before the verb looks any user up, so a form names the faults the API
 * names, in its order.
 */
async function moveOf(
  c: Context<ConsoleEnv>,
  action: Move,
  userId: number,
  form: Fields,
): Promise<Movement> {
  const sent = fieldsOf(form, ["wallet_id", "amount", "request_id", "note"]);
  if (action !== "transfer") {
    const f = await parseMoneyFields(EntryParams, { ...sent, user_id: userId }, c.var.service);
    return { user: { id: f.user_id }, ...movementOf(f), requestId: f.request_id };
  }
  const f = await parseMoneyFields(
    TransferParams,
    { ...sent, from_user_id: userId, to_user_id: field(form, "to_user_id") },
    c.var.service,
  );
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
 * have written. A key sent again with a field changed (a transfer to someone else) moved nothing
 * of what the form asks now, and is refused in words.
 */
const writtenBy = (c: Context<ConsoleEnv>, action: Move, m: Movement, id: number) =>
  entryIsMovement(c.var.service, {
    entryId: id,
    movement: m.to
      ? { ...m, kind: "transfer", to: m.to }
      : { ...m, kind: action === "credit" ? "credit" : "debit" },
  });

/** A money form's fields as typed, to draw it again: its key too, unless `withKey` is false. */
const typedFields = (form: Fields, withKey: boolean) => {
  const keys = ["wallet_id", "amount", "to_user_id", "note", ...(withKey ? ["request_id"] : [])];
  return Object.fromEntries(Object.entries(fieldsOf(form, keys)).filter(([, value]) => value));
};

/**
 * The field of a money form a refusal is about where its words name none: an unknown user other
 * than the page's own is the recipient typed. Undefined: the fields the words name (backRefused).
 */
const recipientAt = (refused: Outcome<unknown>, userId: number) =>
  !refused.ok && refused.reason?.code === "user_not_found" && refused.reason.userId !== userId
    ? ["to_user_id"]
    : undefined;

/** A money form sent again after it moved the money: what its notice says. */
const ALREADY_DONE = "Already done: this form was sent before, and the money moved once.";

/**
 * Whether this money form moved its money already: its key holds the very movement it asks for
 * (its confirmation confirmed, then shown again by Back or a reload). Unknown (a busy database): no.
 */
async function movedBefore(c: Context<ConsoleEnv>, action: Move, id: PathId, form: Fields) {
  const seen = await attemptMoney(c, async () => {
    const m = await moveOf(c, action, id.id, form);
    const taken = await keyedEntryId(c.var.service, { userId: m.user.id, requestId: m.requestId });
    return taken !== undefined && (await writtenBy(c, action, m, taken));
  });
  return seen.ok && seen.value;
}

/**
 * What seals a money form's fields for its confirmation's address, a key per action: a credit's
 * address opens as nothing on the debit's page.
 */
export const askedPurpose = (action: Move) => `wallet-ledger console ${action} asked v1`;

/**
 * A money form as its user's page sends it, before any money moves: a redirect (303) to its
 * confirmation, a page of its own (`moveAsked`), so a reload of it, or Back to it, fetches it and
 * posts nothing. The form's fields ride in its address, sealed (AES-GCM, a key derived from
 * JWT_SECRET) with the user's id and the session's CSRF token: only a form this session sent shows
 * a confirmation, never a link someone else made. Cancel (`step=cancel`) brings the form back as
 * typed; a form whose key already moved its money is told so, never asked again nor "cancelled";
 * one the ledger would refuse is refused at once. Nothing is written either way.
 */
async function askMove(c: Context<ConsoleEnv>, action: Move, id: PathId) {
  const { form } = c.var;
  const userPage = `${BASE}/users/${id.ref}`;
  const fields = typedFields(form, true);
  const done = await movedBefore(c, action, id, form);
  if (field(form, "step") === "cancel")
    return done
      ? back(c, userPage, {
          kind: "error",
          text: `Not cancelled: this ${action} was confirmed before, and the money moved once. Reverse it to undo it.`,
        })
      : back(c, userPage, {
          kind: "ok",
          text: `${moveLabel(action)} cancelled: nothing moved.`,
          refused: { form: action, fields },
        });
  if (done) return back(c, userPage, { kind: "ok", text: ALREADY_DONE });
  const read = await resolveAsked(c, action, id, form);
  if (!read.ok) return read.answer;
  // A recipient as the ledger read it: the id as typed may lead with any number of zeros, and
  // the address must stay short enough for a browser and Cloudflare (16 KB).
  const { to } = read.value;
  const asked = to ? { ...fields, to_user_id: String(to.id) } : fields;
  const held = JSON.stringify({ session: c.var.session.csrf, userId: id.id, fields: asked });
  const ask = await seal(held, jwtSecret(c), askedPurpose(action));
  return c.redirect(`${userPage}/${action}?ask=${encodeURIComponent(ask)}`, 303);
}

/**
 * The movement a form asks for, read by the verb that moves it (its users, its wallet, its amount
 * in the wallet's units); refused, the way back to the form.
 */
async function resolveAsked(c: Context<ConsoleEnv>, action: Move, id: PathId, form: Fields) {
  const read = await attemptMoney(c, async () => {
    const m = await moveOf(c, action, id.id, form);
    if (m.to) return resolveTransfer(c.var.service, { ...m, from: m.user, to: m.to });
    const { user, wallet, amountMinor } = await resolveMove(c.var.service, m);
    return { from: user, to: undefined, wallet, amount: { amountMinor } };
  });
  if (read.ok) return read;
  const refused = { form: action, fields: typedFields(form, true), at: recipientAt(read, id.id) };
  const to = `${BASE}/users/${id.ref}`;
  return {
    ok: false as const,
    answer: await backRefused(c, to, moveLabel(action), read.refusal, refused),
  };
}

/** The fields of the money form `ask` seals, when it is this session's, for this user. */
async function askedFields(c: Context<ConsoleEnv>, action: Move, id: PathId, ask: string) {
  const opened = ask && (await unseal(ask, jwtSecret(c), askedPurpose(action)));
  if (!opened) return undefined;
  const held = JSON.parse(opened) as { session: string; userId: number; fields: Fields };
  return sameSecret(held.session, c.var.session.csrf) && held.userId === id.id
    ? held.fields
    : undefined;
}

const AskQuery = v.object({ ask: Text });

/** What a money form's confirmation asks, and its button: the movement in the ledger's figures. */
const question = (action: Move, amount: string, user: string) =>
  `${moveLabel(action)} ${amount} ${action === "debit" ? "from" : "to"} ${user}`;

/**
 * A money form's confirmation: the wallet and the amount as the ledger would write them, the user
 * the money moves for, and a transfer's both users as the ledger reads the id typed (a mistyped one
 * reaches a stranger). Its Confirm sends the same fields, key included, with `step=confirm`; its
 * Cancel, and a refusal (no such user, an amount the wallet cannot hold), bring the form back as
 * typed. Read again at each visit: once the money moved (Back to it after confirming), the user's
 * page says so instead.
 */
async function moveAsked(c: Context<ConsoleEnv>, action: Move, id: PathId) {
  const form = await askedFields(c, action, id, queryOf(c, AskQuery).ask);
  const userPage = `${BASE}/users/${id.ref}`;
  if (!form)
    return c.html(
      <Page title={moveLabel(action)} session={c.var.session} current="users">
        <section class="stack card">
          <p>
            No {action} is waiting to be confirmed here: send the user's {moveLabel(action)} form,
            and its confirmation follows. The user's entries show what moved.
          </p>
          <a href={userPage}>Back to the user</a>
        </section>
      </Page>,
    );
  if (await movedBefore(c, action, id, form))
    return back(c, userPage, { kind: "ok", text: ALREADY_DONE });
  const read = await resolveAsked(c, action, id, form);
  if (!read.ok) return read.answer;
  const { from, to, wallet, amount: moved } = read.value;
  const amount = formatExact(moved.amountMinor, wallet);
  const asked = to ?? from;
  const users: [string, Child][] = to
    ? [
        ["From", userName(from.id, from.username)],
        ["To", userName(to.id, to.username)],
      ]
    : [["User", userName(from.id, from.username)]];
  return c.html(
    <Page
      title={`${question(action, amount, asked.username)}?`}
      session={c.var.session}
      current="users"
    >
      <Confirmation
        session={c.var.session}
        action={`${userPage}/${action}`}
        label={moveLabel(action)}
        rows={[
          ...users,
          ["Wallet", `${wallet.name} (${wallet.id})`],
          ["Amount", amount],
          ["Note", field(form, "note")],
        ]}
        fields={form}
        confirm={
          <button type="submit" name="step" value="confirm">
            {question(action, amount, "")}
            <span class="name">{asked.username}</span>
          </button>
        }
        cancel={
          <button type="submit" name="step" value="cancel" class="secondary">
            Cancel
          </button>
        }
      >
        <p>
          Nothing has moved yet.{" "}
          {to
            ? "Check that the user above is the one meant: a transfer is undone only by reversing it."
            : `A ${action} is undone only by reversing it.`}
        </p>
      </Confirmation>
    </Page>,
  );
}

for (const action of MOVES)
  moneyScreen.get(
    `/users/:id/${action}`,
    withIds(["id"], (c, { id }) => moveAsked(c, action, id)),
  );

for (const action of MOVES)
  moneyScreen.post(
    `/users/:id/${action}`,
    withIds(["id"], async (c, { id }) => {
      const { form } = c.var;
      // Money moves only from its confirmation page's Confirm.
      if (field(form, "step") !== "confirm") return askMove(c, action, id);
      let movement: Movement | undefined;
      const moved = await attemptMoney(c, async () => {
        await spendMoneyShare(c.var.service);
        movement = await moveOf(c, action, id.id, form);
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
      const refused = repeat?.ok === false ? repeat : moved;
      const { refusal } = refused;
      // The form keeps its key unless the key is taken (409): a retry of a busy database's unknown
      // outcome then moves the money at most once.
      return backRefused(c, to, moveLabel(action), refusal, {
        form: action,
        fields: typedFields(form, refusal.status !== 409),
        at: recipientAt(refused, id.id),
      });
    }),
  );

/**
 * A transaction of the user's offered for reversal: its figures, and the form, or why the ledger
 * would refuse it (`why`: it cannot be reversed; `reversed`: it already was).
 */
function ReverseView(props: {
  /** The user's and the transaction's ids as the path names them. */
  id: string;
  txn: string;
  row: EntryRow;
  why: string | undefined;
  reversed: boolean;
  session: Session;
}) {
  const { id, txn, session } = props;
  const e = props.row.entry;
  const details: [string, Child][] = [
    ["Type", typeOf(e)],
    ["Amount", formatExact(e.amountMinor, props.row)],
    ["Wallet", e.walletId],
    ["Date (UTC)", <When ms={e.createdAtS * 1000} />],
    ["Note", e.note],
    ["Request id", e.requestId],
  ];
  // Reversed alone, a batch's entry leaves its batch no longer reversible as a whole.
  if (e.batchId)
    details.push([
      "Batch",
      <>
        <a href={`${BASE}/batches/${e.batchId}`}>Batch {e.batchId}</a>: reversing this entry alone
        means the batch can no longer be reversed as a whole.
      </>,
    ]);
  // An entry the ledger would refuse to reverse is shown without the form.
  const refused = props.why
    ? `Transaction ${txn} cannot be reversed: ${props.why}.`
    : props.reversed
      ? `Transaction ${txn} was already reversed.`
      : undefined;
  if (refused)
    return (
      <Page title={`Transaction ${txn}`} session={session} current="users">
        <section class="stack card">
          <Details label={`Transaction ${txn}`} rows={details} />
          <p>{refused}</p>
          <a href={`${BASE}/users/${id}`}>Back to the user</a>
        </section>
      </Page>
    );
  return (
    <Page title={`Reverse transaction ${txn}?`} session={session} current="users">
      <Confirmation
        session={session}
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
        <Field label="Note" name="note" autocomplete="off" />
      </Confirmation>
    </Page>
  );
}

moneyScreen.get(
  "/users/:id/reverse/:txn",
  withIds(["id", "txn"], async (c, ids) => {
    // Only a transaction of this user's is offered for reversal.
    const found = await attempt(c, () => readTransaction(c.var.service, ids.txn));
    if (!found.ok || found.value.entry.userId !== ids.id.id) return notFound(c);
    const e = found.value.entry;
    // Whether it was reversed is read only for an entry the ledger would reverse.
    const why = notReversible([e]);
    const reversed = !why && (await reversedEntries(c.var.service, [e.id])).has(e.id);
    return c.html(
      <ReverseView
        id={ids.id.ref}
        txn={ids.txn.ref}
        row={found.value}
        why={why}
        reversed={reversed}
        session={c.var.session}
      />,
    );
  }),
);

moneyScreen.post(
  "/users/:id/reverse/:txn",
  withIds(["id", "txn"], async (c, { id, txn }) => {
    const reversed = await attempt(c, async () => {
      await spendMoneyShare(c.var.service);
      const f = parseFields(ReverseParams, fieldsOf(c.var.form, ["request_id", "note"]));
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
    const repeat =
      taken === undefined
        ? undefined
        : await attempt(c, () => entryReverses(c.var.service, { entryId: taken, txn: txn.id }));
    if (repeat?.ok && repeat.value)
      return back(c, to, {
        kind: "ok",
        text: `Already done: this form was sent before, and transaction ${txn.ref} was reversed once.`,
      });
    return backRefused(c, to, "Reversal", reversed.refusal);
  }),
);

// One batch (POST /batches): its status, its legs and a Reverse button, reached from an entry of
// it on a user's page. Read and reversed by the service's verbs (the same as GET /batches/{id} and
// POST /batches/{id}/reverse), which reverse every leg or none.
import { Hono } from "hono";
import { ReverseBatchParams } from "../http/fields";
import { parseFields } from "../http/validation";
import { readBatch } from "../wallet/batch-reads";
import { reverseBatch } from "../wallet/batch-reversal";
import { spendMoneyShare } from "../wallet/context";
import { usernames } from "../wallet/directory";
import { reversedEntries } from "../wallet/operators";
import { batchRecord } from "../wallet/rules";
import { attempt, backRefused, refusalText } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { back, fieldsOf, noticeOf } from "./page";
import { noSuch, withIds } from "./path-ids";
import { BASE } from "./session";
import { Csrf, Field, type Notice, Page, Table, userName, When } from "./views";

export const batchScreen = new Hono<ConsoleEnv>({ strict: false });

/** A link to batch `id`'s page, `batch 7`. */
export const BatchLink = (props: { id: number }) => (
  <a href={`${BASE}/batches/${props.id}`}>batch {props.id}</a>
);

/** What a batch's page draws, as its handler read it. */
type BatchData = {
  /** The batch's id as its path names it. */
  id: string;
  batch: ReturnType<typeof batchRecord>;
  /** Each leg's user's id, in the legs' order. */
  userIds: number[];
  /** Each leg's wallet, in the legs' order: two wallets may draw amounts alike. */
  walletIds: string[];
  /** The legs reversed on their own. */
  alone: Set<number>;
  names: Map<number, { username: string }>;
};

/** The legs, in a card as every table: its scroll shadows are drawn on white. */
function Legs(props: { d: BatchData }) {
  const { batch, userIds, walletIds, alone, names } = props.d;
  return (
    <section>
      {/* A batch has a leg at least (POST /batches refuses one without). */}
      <Table
        caption="Legs"
        cols={["ID", "User", "Type", "Wallet", "Amount", "Note"]}
        num={["Amount"]}
        empty={null}
      >
        {batch.transactions.map((t, i) => {
          const userId = userIds[i]!;
          return (
            <tr>
              <td>{t.ID}</td>
              <td>
                <a class="name" href={`${BASE}/users/${userId}`}>
                  {userName(userId, names.get(userId)?.username)}
                </a>
              </td>
              <td>{alone.has(t.ID) ? `${t.txn_type} (reversed on its own)` : t.txn_type}</td>
              <td>{walletIds[i]}</td>
              <td class="num">{t.amount_formatted_disp ?? t.amount}</td>
              <td>{t.note}</td>
            </tr>
          );
        })}
      </Table>
      {alone.size > 0 ? (
        <p>
          Reversed on their own: {[...alone].map((t) => `transaction ${t}`).join(", ")}. A batch
          with a leg reversed is not reversed as a whole (the ledger refuses it).
        </p>
      ) : null}
    </section>
  );
}

function BatchView(props: { d: BatchData; session: Session; notice: Notice }) {
  const { id, batch, alone } = props.d;
  return (
    <Page title={`Batch ${id}`} session={props.session} current="users" notice={props.notice}>
      <p>
        Request id <code>{batch.request_id}</code>, <When ms={Date.parse(batch.created_at)} /> UTC,{" "}
        {/* `balanced` is whether the batch was sent to be checked so (POST /batches), not its sums. */}
        {batch.balanced ? "balanced (checked when sent)" : "not checked for balance"}. Status:{" "}
        <strong>{batch.status}</strong>
        {batch.reversal_batch_id ? (
          <>
            {" "}
            by <BatchLink id={batch.reversal_batch_id} />
          </>
        ) : null}
        {batch.reverses_batch_id ? (
          <>
            {" "}
            (reverses <BatchLink id={batch.reverses_batch_id} />)
          </>
        ) : null}
        .
      </p>
      <Legs d={props.d} />
      {batch.status === "completed" && batch.reverses_batch_id === null && alone.size === 0 ? (
        <form
          class="stack card"
          method="post"
          action={`${BASE}/batches/${id}/reverse`}
          data-confirm={`Reverse batch ${id}? The opposite of all ${batch.transactions.length} of its legs is written, and a reversal cannot be undone.`}
        >
          <p>
            This writes the opposite of every leg, or none of them. It cannot be undone, and a batch
            is reversed at most once.
          </p>
          <Csrf session={props.session} />
          <Field label="Note" name="note" autocomplete="off" />
          <button class="danger" type="submit">
            Reverse batch {id}
          </button>
        </form>
      ) : null}
    </Page>
  );
}

batchScreen.get(
  "/batches/:id",
  withIds(["id"], async (c, ids) => {
    const id = ids.id.ref;
    const read = await attempt(c, () => readBatch(c.var.service, ids.id));
    if (!read.ok && read.refusal.status === 404) return noSuch(c, "batch", id);
    if (!read.ok)
      return c.html(
        <Page
          title={`Batch ${id}`}
          session={c.var.session}
          current="users"
          notice={{ kind: "error", text: refusalText(read.refusal) }}
        >
          <p>
            <a href={`${BASE}/users`}>All users</a>
          </p>
        </Page>,
      );
    const batch = batchRecord(read.value, c.var.service.site());
    // Each leg's user's id, as the ledger holds it (the record's `post_author` is the plugin's text).
    const userIds = read.value.entries.map((e) => e.entry.userId);
    const walletIds = read.value.entries.map((e) => e.entry.walletId);
    // Legs reversed on their own: the batch is then never reversed as a whole (the ledger refuses).
    // The legs' usernames, every leg's user in one read.
    const [alone, names] = await Promise.all([
      batch.status === "completed"
        ? reversedEntries(
            c.var.service,
            batch.transactions.map((t) => t.ID),
          )
        : new Set<number>(),
      usernames(c.var.service, userIds),
    ]);
    const d = { id, batch, userIds, walletIds, alone, names };
    return c.html(<BatchView d={d} session={c.var.session} notice={await noticeOf(c)} />);
  }),
);

batchScreen.post(
  "/batches/:id/reverse",
  withIds(["id"], async (c, { id }) => {
    const reversed = await attempt(c, async () => {
      await spendMoneyShare(c.var.service);
      // The note as the API reads it (POST /batches/{id}/reverse's schema), refused past its bound.
      const { note } = parseFields(ReverseBatchParams, fieldsOf(c.var.form, ["note"]));
      return reverseBatch(c.var.service, { ...id, note });
    });
    const to = `${BASE}/batches/${id.ref}`;
    if (reversed.ok) return back(c, to, { kind: "ok", text: `Batch ${id.ref} reversed.` });
    return backRefused(c, to, "Reversal", reversed.refusal);
  }),
);

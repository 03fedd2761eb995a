// A user's holds on the console's user page (docs/console.md): each wallet's balance, what holds
// reserve of it and what is available, the user's holds a page at a time, and Capture (all or part)
// and Void for those still held, each through the service's hold verbs (wallet/holds.ts), which
// resolve a hold once.
import { Hono } from "hono";
import { amountSent, CaptureHoldParams } from "../http/fields";
import { parseFields } from "../http/validation";
import { spendMoneyShare } from "../wallet/context";
import { type availableBalances, captureHold, type HoldView, voidHold } from "../wallet/holds";
import { formatExact } from "../wallet/rules";
import { attempt, backRefused } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { back, field, type Wallet } from "./page";
import { withIds } from "./path-ids";
import { BASE } from "./session";
import {
  AMOUNT_FORM,
  Csrf,
  Empty,
  hinted,
  type Notice,
  Pager,
  PostButton,
  refusedForm,
  Table,
  When,
} from "./views";

export const holdsScreen = new Hono<ConsoleEnv>({ strict: false });

/** The holds a user's page shows at a time, newest first; the rest on the holds' next pages. */
export const HOLDS_SHOWN = 20;

type Available = Awaited<ReturnType<typeof availableBalances>>;

/**
 * Each wallet's balance, and what holds reserve of it and what is available (a wallet the user has
 * no balance in holds nothing). The second table names wallets by id: the first names them by name.
 */
export function BalancesSection(props: { wallets: Wallet[]; available: Available }) {
  const byWallet = new Map(props.available.map((r) => [r.wallet.id, r]));
  if (props.wallets.length === 0)
    return (
      <section>
        <h2>Balances</h2>
        <Empty>No wallets yet.</Empty>
      </section>
    );
  return (
    <section>
      <h2>Balances</h2>
      <table>
        <tbody>
          {props.wallets.map((w) => (
            <tr>
              <th>{w.name}</th>
              <td class="num">{formatExact(byWallet.get(w.id)?.balanceMinor ?? 0, w)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Table
        caption="Held and available"
        cols={["Wallet id", "Held", "Available"]}
        num={["Held", "Available"]}
        empty={null}
      >
        {props.wallets.map((w) => (
          <tr>
            <td>{w.id}</td>
            <td class="num">{formatExact(byWallet.get(w.id)?.heldMinor ?? 0, w)}</td>
            <td class="num">{formatExact(byWallet.get(w.id)?.availableMinor ?? 0, w)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

/** A capture's amount as the wallet shows it. */
const capturedText = ({ hold, wallet }: HoldView) => formatExact(hold.capturedMinor ?? 0, wallet);

/** A hold's capture form, as a refused capture names it to be drawn again with its amount. */
const captureForm = (holdId: number) => `capture-${holdId}`;

/** The words under the holds that say what a capture's amount takes, which each describes. */
const CAPTURE_HINT = "capture-hint";

export function HoldsSection(props: {
  userId: number;
  holds: HoldView[];
  session: Session;
  notice?: Notice;
  /** The page of holds shown, of how many, and the rest of the page's query, kept by the pager. */
  pager: { page: number; pages: number; query: Record<string, string> };
}) {
  const { holds } = props;
  return (
    <section id="holds">
      <h2>Holds</h2>
      {/* Narrower than it needs (console.css), its cells stack, Capture and Void on a line of
          their own. */}
      <Table
        class="stacked holds"
        cols={["ID", "Wallet", "Amount", "Status", "Expires (UTC)", "Note"]}
        num={["Amount"]}
        lines={["Note", "Action"]}
        actions
        // A page past the last has none either: the pager says so.
        empty={
          props.pager.pages === 0
            ? "No holds. Holds are placed through the API (POST /holds)."
            : null
        }
      >
        {holds.map((view) => {
          const h = view.hold;
          const at = `${BASE}/users/${props.userId}/holds/${h.id}`;
          const amount = formatExact(h.amountMinor, view.wallet);
          // This hold's capture as its refusal left it: the amount typed, marked if it was at fault.
          const refused = refusedForm(props.notice, captureForm(h.id));
          return (
            <tr>
              <td>{String(h.id)}</td>
              <td>{h.walletId}</td>
              <td class="num">{amount}</td>
              <td>
                {view.status === "captured"
                  ? `captured ${capturedText(view)} (transaction ${view.transactionId})`
                  : view.status}
              </td>
              <td>
                <When ms={h.expiresAtS * 1000} to="second" />
              </td>
              <td class="note line">{h.note}</td>
              <td class="line">
                {view.status === "held" && (
                  <div class="actions">
                    <form
                      method="post"
                      action={`${at}/capture`}
                      data-confirm={`Capture all ${amount} of hold ${h.id}? All of it is debited, and a hold is captured once.`}
                      data-confirm-typed={`Capture %s of hold ${h.id}'s ${amount}? That much is debited and the rest released, and a hold is captured once.`}
                    >
                      <Csrf session={props.session} />
                      <input
                        name="amount"
                        inputmode="decimal"
                        autocomplete="off"
                        placeholder="all"
                        aria-label={`Amount to capture of hold ${h.id} (empty: all)`}
                        value={refused.kept.amount}
                        {...hinted(refused.fault("amount"), CAPTURE_HINT)}
                      />
                      <button type="submit">Capture hold {String(h.id)}</button>
                    </form>
                    <PostButton
                      session={props.session}
                      action={`${at}/void`}
                      kind="danger"
                      confirm={`Void hold ${h.id}? Its ${amount} goes back to available, and a voided hold cannot be captured.`}
                    >
                      Void hold {String(h.id)}
                    </PostButton>
                  </div>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      {/* Once for the table: under each field, its rows would stand taller than their buttons. */}
      {holds.some((view) => view.status === "held") && (
        <p class="hint" id={CAPTURE_HINT}>
          Capture takes the amount typed beside it, all of the hold if none; in {AMOUNT_FORM}
        </p>
      )}
      <Pager
        {...props.pager}
        path={`${BASE}/users/${props.userId}`}
        param="holds_page"
        label="Pages of holds"
        at="holds"
      />
    </section>
  );
}

for (const action of ["capture", "void"] as const)
  holdsScreen.post(
    `/users/:id/holds/:hold/${action}`,
    withIds(["id", "hold"], async (c, { id, hold }) => {
      const amount = field(c.var.form, "amount");
      const resolved = await attempt(c, async () => {
        await spendMoneyShare(c.var.service);
        // A hold of this page's user only: another's, named in a crafted address, is not found.
        if (action === "void") return voidHold(c.var.service, { hold, userId: id.id });
        const fields = parseFields(CaptureHoldParams, amount !== "" ? { amount } : {});
        return captureHold(c.var.service, {
          hold,
          userId: id.id,
          amount: fields.amount && amountSent(fields.amount),
          note: fields.note,
        });
      });
      const to = `${BASE}/users/${id.ref}`;
      if (resolved.ok)
        return back(c, to, {
          kind: "ok",
          text:
            action === "capture"
              ? `Hold ${hold.ref} captured: ${capturedText(resolved.value)} debited (transaction ${resolved.value.transactionId})${resolved.value.hold.capturedMinor === resolved.value.hold.amountMinor ? "" : "; the rest released"}.`
              : `Hold ${hold.ref} voided: all of it released.`,
        });
      if (action === "void") return backRefused(c, to, "Void", resolved.refusal);
      // The amount typed stays in its field: emptied, the form sent again would capture all of the hold.
      return backRefused(c, to, "Capture", resolved.refusal, {
        form: captureForm(hold.id),
        fields: { amount },
      });
    }),
  );

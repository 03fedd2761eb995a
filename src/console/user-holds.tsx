// A user's holds on the console's user page (docs/console.md): what each wallet holds and has
// available, the user's recent holds, and Capture (all or part) and Void for those still held, each
// through the API (POST /holds/{id}/capture and /void), which resolves a hold once.
import { Hono } from "hono";
import { formatMoney } from "../ledger/money";
import { type ApiAnswer, refusalText } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { api, back, field, type Wallet } from "./page";
import { BASE } from "./session";
import { Csrf } from "./views";

export const holdsScreen = new Hono<ConsoleEnv>({ strict: false });

/** The user's holds, newest first, as GET /holds answers them (one page). */
export const userHolds = (c: Parameters<typeof api>[0], userId: number) =>
  api(c, "GET", `/holds?user_id=${userId}&per_page=20`);

/**
 * What holds reserve of each wallet and what is available, as GET /balances answers them (a wallet
 * the user has no balance in holds nothing). Rows name wallets by id: the balance rows above name
 * them by name.
 */
export function AvailableTable(props: { wallets: Wallet[]; available: ApiAnswer }) {
  const rows = (props.available.status === 200 ? props.available.body.data : []) as {
    wallet_id: string;
    formatted: { balance: string; held: string; available: string };
  }[];
  const byWallet = new Map(rows.map((r) => [r.wallet_id, r.formatted]));
  return (
    <table>
      <caption>Held and available</caption>
      <thead>
        <tr>
          <th>Wallet id</th>
          <th class="num">Held</th>
          <th class="num">Available</th>
        </tr>
      </thead>
      <tbody>
        {props.wallets.map((w) => (
          <tr>
            <td>{w.id}</td>
            <td class="num">{byWallet.get(w.id)?.held ?? formatMoney(0, w)}</td>
            <td class="num">{byWallet.get(w.id)?.available ?? formatMoney(0, w)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const when = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "");

export function HoldsSection(props: { userId: number; holds: ApiAnswer; session: Session }) {
  const holds = (props.holds.status === 200 ? props.holds.body.data : []) as Record<
    string,
    // biome-ignore lint/suspicious/noExplicitAny: API records, read field by field
    any
  >[];
  return (
    <section>
      <h2>Holds</h2>
      {holds.length === 0 ? (
        <p class="muted">No holds. Holds are placed through the API (POST /holds).</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>ID</th>
                <th>Wallet</th>
                <th class="num">Amount</th>
                <th>Status</th>
                <th>Expires (UTC)</th>
                <th>Note</th>
                <th>
                  <span class="muted">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {holds.map((h) => (
                <tr>
                  <td>{String(h.hold_id)}</td>
                  <td>{String(h.wallet_id)}</td>
                  <td class="num">{String(h.amount_formatted)}</td>
                  <td>
                    {h.status === "captured"
                      ? `captured ${h.captured_amount_formatted} (transaction ${h.transaction_id})`
                      : String(h.status)}
                  </td>
                  <td>{when(h.expires_at)}</td>
                  <td>{String(h.note)}</td>
                  <td>
                    {h.status === "held" && (
                      <div class="actions">
                        <form
                          method="post"
                          action={`${BASE}/users/${props.userId}/holds/${h.hold_id}/capture`}
                        >
                          <Csrf session={props.session} />
                          <input
                            name="amount"
                            inputmode="decimal"
                            autocomplete="off"
                            placeholder="all"
                            aria-label={`Amount to capture of hold ${h.hold_id} (empty: all)`}
                          />
                          <button type="submit">Capture hold {String(h.hold_id)}</button>
                        </form>
                        <form
                          method="post"
                          action={`${BASE}/users/${props.userId}/holds/${h.hold_id}/void`}
                        >
                          <Csrf session={props.session} />
                          <button class="danger" type="submit">
                            Void hold {String(h.hold_id)}
                          </button>
                        </form>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const resolve = (action: "capture" | "void") =>
  holdsScreen.post(`/users/:id{[0-9]{1,15}}/holds/:hold{[0-9]{1,15}}/${action}`, async (c) => {
    const { id, hold } = c.req.param();
    const form = await c.req.formData();
    const amount = field(form, "amount");
    const answer = await api(
      c,
      "POST",
      `/holds/${hold}/${action}`,
      action === "capture" && amount !== "" ? { amount } : {},
    );
    const to = `${BASE}/users/${id}`;
    if (answer.status === 200)
      return back(c, to, {
        kind: "ok",
        text:
          action === "capture"
            ? `Hold ${hold} captured: ${answer.body.data.captured_amount_formatted} debited (transaction ${answer.body.data.transaction_id}); the rest released.`
            : `Hold ${hold} voided: all of it released.`,
      });
    return back(c, to, {
      kind: "error",
      text: `${action === "capture" ? "Capture" : "Void"} refused. ${refusalText(answer)}`,
    });
  });
resolve("capture");
resolve("void");

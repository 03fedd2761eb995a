// One user: balances (held and available beside them), holds, statement (figures and CSV), balance
// chart, entries, and money moved by hand (credit, debit, transfer, reverse, capture or void a hold),
// each through the API.

import { Hono } from "hono";
import { balanceSeries } from "../db/console";
import { listEntries } from "../db/ledger";
import { findUsers } from "../db/users";
import { formatMoney } from "../ledger/money";
import { type ApiAnswer, refusalText } from "./api";
import type { ConsoleEnv } from "./env";
import { api, back, day, field, freshKey, noticeOf, PER_PAGE, positive, wallets } from "./page";
import { BASE } from "./session";
import { readStatementFigures, StatementSection, statementChoice } from "./statement";
import { AvailableTable, HoldsSection, userHolds } from "./user-holds";
import { Chart, Csrf, Page, Pager } from "./views";

export const userScreen = new Hono<ConsoleEnv>({ strict: false });

userScreen.get("/users/:id{[0-9]{1,15}}", async (c) => {
  const userId = Number(c.req.param("id"));
  const page = positive(c.req.query("page"), 1);
  const ws = await wallets(c);
  const choice = statementChoice(c, ws);
  // Balances as the API formats them; the statement through the same read the API's list uses
  // (its records carry no balance-after or request id, which an operator needs here).
  const [balances, statement, series, owner, figures, available, holds] = await Promise.all([
    ws.length === 0
      ? Promise.resolve<ApiAnswer>({ status: 200, body: { data: {} } })
      : api(
          c,
          "GET",
          `/user-wallet-balance?user_id=${userId}&wallet_id=${ws.map((w) => w.id).join(",")}&formatted=yes`,
        ),
    listEntries(
      c.var.db,
      { userId },
      { offset: (page - 1) * PER_PAGE, limit: PER_PAGE, order: "desc" },
    ),
    Promise.all(ws.map((w) => balanceSeries(c.var.db, userId, w.id, 200))),
    findUsers(c.var.db, [userId]),
    readStatementFigures(c, userId, choice),
    api(c, "GET", `/balances?user_id=${userId}`),
    userHolds(c, userId),
  ]);
  const user = owner.get(userId);
  if (!statement.userExists || !user)
    return c.html(
      <Page title="No such user" session={c.var.session} current="users">
        <p>
          There is no user {userId}. <a href={`${BASE}/users`}>All users</a>
        </p>
      </Page>,
      404,
    );
  const formatted = (balances.body.data?.formatted ?? {}) as Record<string, string>;
  const moneyForm = (action: "credit" | "debit" | "transfer", label: string) => (
    <form class="stack card" method="post" action={`${BASE}/users/${userId}/${action}`}>
      <h3>{label}</h3>
      <Csrf session={c.var.session} />
      <input type="hidden" name="request_id" value={freshKey()} />
      <label>
        Wallet
        <select name="wallet_id" required>
          {ws.map((w) => (
            <option value={w.id}>{`${w.name} (${w.id})`}</option>
          ))}
        </select>
      </label>
      <label>
        Amount
        <input name="amount" inputmode="decimal" required autocomplete="off" />
      </label>
      {action === "transfer" && (
        <label>
          To user
          <input
            name="to_user_id"
            inputmode="numeric"
            required
            autocomplete="off"
            placeholder="user id"
          />
        </label>
      )}
      <label>
        Note
        <input name="note" autocomplete="off" />
      </label>
      <button type="submit">{label}</button>
    </form>
  );
  return c.html(
    <Page
      title={`${user.username} (user ${userId})`}
      session={c.var.session}
      current="users"
      notice={noticeOf(c)}
    >
      <section>
        <h2>Balances</h2>
        <table>
          <tbody>
            {ws.map((w) => (
              <tr>
                <th>{w.name}</th>
                <td class="num">{formatted[w.id] ?? formatMoney(0, w)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <AvailableTable wallets={ws} available={available} />
      </section>
      <HoldsSection userId={userId} holds={holds} session={c.var.session} />
      {ws.map((w, i) =>
        series[i]!.length > 0 ? (
          <section>
            <h2>{w.name}: balance over time</h2>
            <Chart
              title={`${w.name} balance after each of the last ${series[i]!.length} entries`}
              xLabels={[day(series[i]![0]!.at), day(series[i]!.at(-1)!.at)]}
              yLabel={`balance (${w.symbol})`}
              yFormat={(y) => formatMoney(y, w)}
              lines={[
                { label: "balance", points: series[i]!.map((p, k) => ({ x: k, y: p.after })) },
              ]}
            />
          </section>
        ) : null,
      )}
      <div class="forms">
        {moneyForm("credit", "Credit")}
        {moneyForm("debit", "Debit")}
        {moneyForm("transfer", "Transfer")}
      </div>
      <section>
        <h2>Sessions</h2>
        <form class="stack card" method="post" action={`${BASE}/users/${userId}/sessions/revoke`}>
          <p>
            Signs {user.username} out everywhere: every access token and console session of this
            user stops working within seconds. API keys are not touched (revoke them under API
            keys).
          </p>
          <Csrf session={c.var.session} />
          <button class="danger" type="submit">
            Sign {user.username} out everywhere
          </button>
        </form>
      </section>
      <StatementSection userId={userId} wallets={ws} choice={choice} read={figures} />
      <section>
        <h2>Entries</h2>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>ID</th>
                <th>Date</th>
                <th>Type</th>
                <th class="num">Amount</th>
                <th class="num">Balance after</th>
                <th>Note</th>
                <th>Request id</th>
                <th>
                  <span class="muted">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {statement.rows.map(({ entry: e, ...w }) => {
                const wallet = {
                  symbol: w.symbol ?? "",
                  decimals: w.decimals ?? 0,
                  extraDecimals: w.extraDecimals ?? 0,
                  symbolPosition: w.symbolPosition ?? "left",
                };
                return (
                  <tr>
                    <td>{e.id}</td>
                    <td>
                      {new Date(e.createdAtS * 1000).toISOString().slice(0, 16).replace("T", " ")}
                    </td>
                    <td>
                      {e.reversesId ? `${e.txnType} (reversal of ${e.reversesId})` : e.txnType}
                      {e.batchId ? (
                        <>
                          {" "}
                          <a href={`${BASE}/batches/${e.batchId}`}>batch {e.batchId}</a>
                        </>
                      ) : null}
                    </td>
                    <td class="num">{formatMoney(e.amountMinor, wallet)}</td>
                    <td class="num">{formatMoney(e.balanceAfterMinor, wallet)}</td>
                    <td>{e.note}</td>
                    <td>{e.requestId}</td>
                    <td>
                      <a
                        href={`${BASE}/users/${userId}/reverse/${e.id}`}
                        aria-label={`Reverse transaction ${e.id}`}
                      >
                        Reverse
                      </a>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <Pager
          page={page}
          pages={Math.ceil(statement.total / PER_PAGE)}
          href={(p) => `${BASE}/users/${userId}?page=${p}`}
        />
      </section>
    </Page>,
  );
});

const move = (action: "credit" | "debit" | "transfer") =>
  userScreen.post(`/users/:id{[0-9]{1,15}}/${action}`, async (c) => {
    const userId = Number(c.req.param("id"));
    const form = await c.req.formData();
    const common = {
      wallet_id: field(form, "wallet_id"),
      amount: field(form, "amount"),
      request_id: field(form, "request_id"),
      note: field(form, "note"),
    };
    const answer =
      action === "transfer"
        ? await api(c, "POST", "/transfers", {
            ...common,
            from_user_id: userId,
            to_user_id: field(form, "to_user_id"),
          })
        : await api(c, "POST", action === "credit" ? "/credits" : "/debits", {
            ...common,
            user_id: userId,
          });
    const to = `${BASE}/users/${userId}`;
    if (answer.status === 200)
      return back(c, to, {
        kind: "ok",
        text: `${answer.body.message}: ${common.amount} ${common.wallet_id}.`,
      });
    // The same form sent twice (a double click, a retried submit): the first one moved the money.
    if (answer.status === 409)
      return back(c, to, {
        kind: "ok",
        text: "Already done: this form was sent before, and the money moved once.",
      });
    return back(c, to, {
      kind: "error",
      text: `${action[0]!.toUpperCase()}${action.slice(1)} refused. ${refusalText(answer)}`,
    });
  });
move("credit");
move("debit");
move("transfer");

userScreen.post("/users/:id{[0-9]{1,15}}/sessions/revoke", async (c) => {
  const id = c.req.param("id");
  const answer = await api(c, "POST", `/users/${id}/sessions/revoke`);
  const to = `${BASE}/users/${id}`;
  if (answer.status !== 200)
    return back(c, to, { kind: "error", text: `Sign-out refused. ${refusalText(answer)}` });
  const n = Number(answer.body.data.revoked);
  return back(c, to, {
    kind: "ok",
    text: `Signed out everywhere: ${n} session${n === 1 ? "" : "s"} ended.`,
  });
});

userScreen.get("/users/:id{[0-9]{1,15}}/reverse/:txn{[0-9]{1,15}}", (c) => {
  const { id, txn } = c.req.param();
  return c.html(
    <Page title={`Reverse transaction ${txn}?`} session={c.var.session} current="users">
      <form class="stack card" method="post" action={`${BASE}/users/${id}/reverse/${txn}`}>
        <p>
          This writes the opposite entry (both halves, for a transfer). It cannot be undone, and a
          transaction is reversed at most once.
        </p>
        <Csrf session={c.var.session} />
        <input type="hidden" name="request_id" value={freshKey()} />
        <label>
          Note
          <input name="note" autocomplete="off" />
        </label>
        <button class="danger" type="submit">
          Reverse transaction {txn}
        </button>
        <a href={`${BASE}/users/${id}`}>Cancel</a>
      </form>
    </Page>,
  );
});
userScreen.post("/users/:id{[0-9]{1,15}}/reverse/:txn{[0-9]{1,15}}", async (c) => {
  const { id, txn } = c.req.param();
  const form = await c.req.formData();
  const answer = await api(c, "POST", `/transactions/${txn}/reverse`, {
    request_id: field(form, "request_id"),
    note: field(form, "note"),
  });
  const to = `${BASE}/users/${id}`;
  if (answer.status === 200)
    return back(c, to, { kind: "ok", text: `Transaction ${txn} reversed.` });
  return back(c, to, { kind: "error", text: `Reversal refused. ${refusalText(answer)}` });
});

// The operator console at /wallet-admin/: server-rendered pages over the API itself (./api.ts) and
// read-only aggregates (db/console.ts). Administrators only; forms carry a CSRF token and, for money,
// an idempotency key made when the form was drawn, so a double submit moves money once.
import { type Context, Hono } from "hono";
import { CONSOLE_AUDIENCE, verifyToken } from "../auth/tokens";
import { balanceSeries, overview, searchUsers } from "../db/console";
import { listEntries } from "../db/ledger";
import { findUsers } from "../db/users";
import type { AppEnv } from "../env";
import { jwtSecret } from "../http/auth";
import { missingSettings } from "../http/settings";
import { formatMoney, type WalletDisplay } from "../ledger/money";
import { type ApiAnswer, callApi, type Fetch, refusalText } from "./api";
import { CSS, JS } from "./assets";
import { consoleBoundary } from "./boundary";
import { BASE, endSession, readSession, sameText, startSession } from "./session";
import { Chart, Csrf, type Notice, Page, Pager } from "./views";

type Wallet = WalletDisplay & { id: string; name: string };

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'";
const PER_PAGE = 20;
const NOT_ADMIN =
  "Sorry, this console is for administrators. Your account works with the API and the apps built on it.";
const DAY_S = 86_400;

const freshKey = () => `console-${crypto.randomUUID()}`;
const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value.trim() : "";
};
const positive = (text: string | undefined, fallback: number) => {
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 1 ? n : fallback;
};
/** A redirect back to a page, with a notice for it to show. */
const back = (c: Context<AppEnv>, to: string, notice: NonNullable<Notice>) =>
  c.redirect(
    `${to}${to.includes("?") ? "&" : "?"}${notice.kind}=${encodeURIComponent(notice.text)}`,
    303,
  );
const noticeOf = (c: Context<AppEnv>): Notice => {
  const ok = c.req.query("ok");
  const error = c.req.query("error");
  return error ? { kind: "error", text: error } : ok ? { kind: "ok", text: ok } : undefined;
};

const walletDisplay = (w: Record<string, unknown>): Wallet => ({
  id: String(w.wallet_id),
  name: String(w.wallet_name),
  symbol: String(w.wallet_symbol),
  symbolPosition: w.wallet_symbol_position === "right" ? "right" : "left",
  decimals: Number(w.wallet_decimal),
  extraDecimals: 0,
});

export function consoleRoutes(fetch: Fetch) {
  const api = (
    c: Context<AppEnv>,
    method: "GET" | "POST" | "DELETE",
    path: string,
    body?: Record<string, unknown>,
  ) => callApi(c, fetch, c.var.session.principal, method, path, body);
  const wallets = async (c: Context<AppEnv>) => {
    const answer = await api(c, "GET", "/wallets");
    return answer.status === 200
      ? (answer.body.data as Record<string, unknown>[]).map(walletDisplay)
      : [];
  };

  const app = new Hono<AppEnv>({ strict: false });
  app.use(async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CSP);
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
  });
  app.use(consoleBoundary);
  app.get("/console.css", (c) => c.body(CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));
  app.get("/console.js", (c) =>
    c.body(JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  // Every page below needs the service's settings (sessions are signed with JWT_SECRET): until a
  // missing one is set, the console says which, and nothing is read or written.
  app.use(async (c, next) => {
    const missing = missingSettings(c);
    if (missing.length === 0) return next();
    return c.html(
      <Page title="Service not configured">
        <section class="card">
          <h2>Service not configured</h2>
          <p>
            The service cannot sign anyone in until its operator sets:{" "}
            <strong>{missing.join(", ")}</strong>. The Worker's log says what is wrong with each;{" "}
            <code>GET /health</code> names them too.
          </p>
          <p class="muted">
            See docs/configuration.md (JWT_SECRET: at least 32 characters, a secret).
          </p>
        </section>
      </Page>,
      503,
    );
  });

  // ---- signing in and out ------------------------------------------------------------------------
  const signInPage = (c: Context<AppEnv>, notice?: Notice, status: 200 | 400 | 403 | 429 = 200) =>
    c.html(
      <Page title="Sign in" notice={notice}>
        <form class="stack card" method="post" action={`${BASE}/sign-in`}>
          <label>
            Email
            <input name="email" type="text" autocomplete="username" required />
          </label>
          <label>
            Password
            <input name="password" type="password" autocomplete="current-password" required />
          </label>
          <button type="submit">Sign in</button>
        </form>
        <p class="muted">For the service's administrators. The API itself is at /wp-json/.</p>
      </Page>,
      status,
    );
  app.get("/sign-in", (c) => signInPage(c));
  app.post("/sign-in", async (c) => {
    const form = await c.req.formData().catch(() => new FormData());
    // The API's sign-in, in-process: it issues this call a console token, with a console session.
    const answer = await callApi(c, fetch, undefined, "POST", "/users/login", {
      user_email: field(form, "email"),
      user_password: String(form.get("password") ?? ""),
    });
    if (answer.status !== 200)
      return signInPage(
        c,
        {
          kind: "error",
          text:
            answer.status === 429 ? refusalText(answer) : "Those credentials were not accepted.",
        },
        answer.status === 429 ? 429 : 400,
      );
    const token = String(answer.body.data.access_token);
    const principal = await verifyToken(token, jwtSecret(c), c.env.JWT_ISSUER, CONSOLE_AUDIENCE);
    if (principal?.role !== "administrator") {
      // The session just opened serves no one: end it rather than leave it live until it expires.
      if (principal) await callApi(c, fetch, principal, "POST", "/users/logout");
      return signInPage(c, { kind: "error", text: NOT_ADMIN }, 403);
    }
    startSession(c, token);
    return c.redirect(`${BASE}/`, 303);
  });
  app.post("/sign-out", async (c) => {
    const session = await readSession(c);
    const form = await c.req.formData().catch(() => new FormData());
    if (session && !sameText(field(form, "_csrf"), session.csrf)) return c.text("Forbidden", 403);
    // The session itself ends (POST /users/logout): the cookie, if kept or stolen, opens nothing.
    const answer = session && (await callApi(c, fetch, session.principal, "POST", "/users/logout"));
    endSession(c);
    if (answer && answer.status !== 200)
      return back(c, `${BASE}/sign-in`, {
        kind: "error",
        text: `The cookie is deleted, but the session could not be ended: ${refusalText(answer)}`,
      });
    return back(c, `${BASE}/sign-in`, { kind: "ok", text: "Signed out." });
  });

  // ---- everything else needs an administrator's session ------------------------------------------
  app.use(async (c, next) => {
    const session = await readSession(c);
    if (!session) return c.redirect(`${BASE}/sign-in`, 303);
    if (session.principal.role !== "administrator") {
      endSession(c);
      return signInPage(c, { kind: "error", text: NOT_ADMIN }, 403);
    }
    c.set("session", session);
    if (c.req.method === "POST") {
      const form = await c.req.raw
        .clone()
        .formData()
        .catch(() => new FormData());
      if (!sameText(field(form, "_csrf"), session.csrf))
        return c.text("The form has expired: go back, reload the page and try again.", 403);
    }
    await next();
  });

  // ---- overview ----------------------------------------------------------------------------------
  app.get("/", async (c) => {
    const nowS = Math.floor(c.get("nowMs")() / 1000);
    const data = await overview(c.var.db, nowS, 30);
    const byWallet = new Map(data.held.map((h) => [h.wallet.id, h.wallet]));
    return c.html(
      <Page title="Overview" session={c.var.session} current="overview" notice={noticeOf(c)}>
        <div class="grid">
          <section>
            <h2>Users</h2>
            <p>
              <a href={`${BASE}/users`}>{data.users} accounts</a>
            </p>
          </section>
          {data.held.map((h) => (
            <section>
              <h2>{h.wallet.name}</h2>
              <p>
                {formatMoney(h.held, h.wallet)} held by {h.holders} users
              </p>
            </section>
          ))}
        </div>
        {data.held.map(({ wallet }) => {
          const rows = data.daily.filter((d) => d.walletId === wallet.id);
          const days = Array.from({ length: 30 }, (_, i) => data.sinceS + i * DAY_S);
          const at = (d: number, k: "credits" | "debits") =>
            rows.find((r) => r.day === d)?.[k] ?? 0;
          return (
            <section>
              <h2>{wallet.name}: money in and out per day, last 30 days</h2>
              <Chart
                title={`${wallet.name}: credits and debits per day`}
                xLabels={[day(days[0]!), day(days[29]!)]}
                lines={[
                  {
                    label: "in (credits)",
                    points: days.map((d) => ({ x: d, y: at(d, "credits") })),
                  },
                  {
                    label: "out (debits)",
                    dash: "6 4",
                    points: days.map((d) => ({ x: d, y: at(d, "debits") })),
                  },
                ]}
              />
              <details>
                <summary>Figures</summary>
                <table>
                  <thead>
                    <tr>
                      <th>Day</th>
                      <th class="num">In</th>
                      <th class="num">Out</th>
                    </tr>
                  </thead>
                  <tbody>
                    {days
                      .filter((d) => at(d, "credits") || at(d, "debits"))
                      .map((d) => (
                        <tr>
                          <td>{day(d)}</td>
                          <td class="num">{formatMoney(at(d, "credits"), wallet)}</td>
                          <td class="num">{formatMoney(at(d, "debits"), wallet)}</td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </details>
            </section>
          );
        })}
        <section>
          <h2>Latest transactions</h2>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>ID</th>
                  <th>User</th>
                  <th>Type</th>
                  <th class="num">Amount</th>
                  <th>Date</th>
                </tr>
              </thead>
              <tbody>
                {data.latest.map(({ entry, username }) => {
                  const w = byWallet.get(entry.walletId);
                  return (
                    <tr>
                      <td>{entry.id}</td>
                      <td>
                        <a href={`${BASE}/users/${entry.userId}`}>{username ?? entry.userId}</a>
                      </td>
                      <td>{entry.txnType}</td>
                      <td class="num">
                        {w ? formatMoney(entry.amountMinor, w) : entry.amountText}
                      </td>
                      <td>{day(entry.createdAtS)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      </Page>,
    );
  });

  // ---- users -------------------------------------------------------------------------------------
  app.get("/users", async (c) => {
    const q = (c.req.query("q") ?? "").slice(0, 100);
    const page = positive(c.req.query("page"), 1);
    const [{ rows, total }, ws] = await Promise.all([
      searchUsers(c.var.db, q, (page - 1) * PER_PAGE, PER_PAGE),
      wallets(c),
    ]);
    const byId = new Map(ws.map((w) => [w.id, w]));
    const href = (p: number) => `${BASE}/users?q=${encodeURIComponent(q)}&page=${p}`;
    return c.html(
      <Page title="Users" session={c.var.session} current="users" notice={noticeOf(c)}>
        <search>
          <form method="get" action={`${BASE}/users`} class="card">
            <label>
              Search by username or e-mail
              <input name="q" type="search" value={q} />
            </label>
            <button type="submit">Search</button>
          </form>
        </search>
        <section>
          <p class="muted">{total} users</p>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Username</th>
                  <th>E-mail</th>
                  <th>Role</th>
                  <th>Balances</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((u) => {
                  const balances = Object.entries(
                    JSON.parse(u.balances ?? "{}") as Record<string, number>,
                  );
                  return (
                    <tr>
                      <td>
                        <a href={`${BASE}/users/${u.id}`}>{u.username}</a>
                      </td>
                      <td>{u.email}</td>
                      <td>{u.role}</td>
                      <td>
                        {balances
                          .map(([id, minor]) => {
                            const w = byId.get(id);
                            return w ? formatMoney(minor, w) : `${minor} ${id}`;
                          })
                          .join(", ") || "—"}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={Math.ceil(total / PER_PAGE)} href={href} />
        </section>
        <section>
          <h2>New user</h2>
          <form class="stack" method="post" action={`${BASE}/users`}>
            <Csrf session={c.var.session} />
            <label>
              Username
              <input name="username" required autocomplete="off" />
            </label>
            <label>
              Email
              <input name="user_email" type="email" required autocomplete="off" />
            </label>
            <label>
              Password
              <input name="user_password" type="password" required autocomplete="new-password" />
            </label>
            <button type="submit">Create user</button>
          </form>
        </section>
      </Page>,
    );
  });
  app.post("/users", async (c) => {
    const form = await c.req.formData();
    const answer = await api(c, "POST", "/users", {
      username: field(form, "username"),
      user_email: field(form, "user_email"),
      user_password: String(form.get("user_password") ?? ""),
    });
    if (answer.status !== 201)
      return back(c, `${BASE}/users`, { kind: "error", text: refusalText(answer) });
    return back(c, `${BASE}/users/${answer.body.data.id}`, { kind: "ok", text: "User created." });
  });

  // ---- one user ----------------------------------------------------------------------------------
  app.get("/users/:id{[0-9]{1,15}}", async (c) => {
    const userId = Number(c.req.param("id"));
    const page = positive(c.req.query("page"), 1);
    const ws = await wallets(c);
    // Balances as the API formats them; the statement through the same read the API's list uses
    // (its records carry no balance-after or request id, which an operator needs here).
    const [balances, statement, series, owner] = await Promise.all([
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
        </section>
        {ws.map((w, i) =>
          series[i]!.length > 0 ? (
            <section>
              <h2>{w.name}: balance over time</h2>
              <Chart
                title={`${w.name} balance after each of the last ${series[i]!.length} entries`}
                xLabels={[day(series[i]![0]!.at), day(series[i]!.at(-1)!.at)]}
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
        <section>
          <h2>Statement</h2>
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
    app.post(`/users/:id{[0-9]{1,15}}/${action}`, async (c) => {
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

  app.post("/users/:id{[0-9]{1,15}}/sessions/revoke", async (c) => {
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

  app.get("/users/:id{[0-9]{1,15}}/reverse/:txn{[0-9]{1,15}}", (c) => {
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
  app.post("/users/:id{[0-9]{1,15}}/reverse/:txn{[0-9]{1,15}}", async (c) => {
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

  // ---- wallets -----------------------------------------------------------------------------------
  app.get("/wallets", async (c) => {
    const ws = await wallets(c);
    return c.html(
      <Page title="Wallets" session={c.var.session} current="wallets" notice={noticeOf(c)}>
        <section>
          <table>
            <thead>
              <tr>
                <th>ID</th>
                <th>Name</th>
                <th>Symbol</th>
                <th>Position</th>
                <th class="num">Decimals</th>
              </tr>
            </thead>
            <tbody>
              {ws.map((w) => (
                <tr>
                  <td>{w.id}</td>
                  <td>{w.name}</td>
                  <td>{w.symbol}</td>
                  <td>{w.symbolPosition}</td>
                  <td class="num">{w.decimals}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section>
          <h2>New wallet</h2>
          <form class="stack" method="post" action={`${BASE}/wallets`}>
            <Csrf session={c.var.session} />
            <label>
              Wallet id
              <input name="wallet_id" required autocomplete="off" placeholder="ngn" />
            </label>
            <label>
              Name
              <input name="wallet_name" required autocomplete="off" />
            </label>
            <label>
              Symbol
              <input name="wallet_symbol" required autocomplete="off" />
            </label>
            <label>
              Symbol position
              <select name="wallet_symbol_position">
                <option value="left">left</option>
                <option value="right">right</option>
              </select>
            </label>
            <label>
              Decimals
              <input name="wallet_decimal" inputmode="numeric" value="2" required />
            </label>
            <button type="submit">Create wallet</button>
          </form>
        </section>
      </Page>,
    );
  });
  app.post("/wallets", async (c) => {
    const form = await c.req.formData();
    const answer = await api(c, "POST", "/wallets", {
      wallet_id: field(form, "wallet_id"),
      wallet_name: field(form, "wallet_name"),
      wallet_symbol: field(form, "wallet_symbol"),
      wallet_symbol_position: field(form, "wallet_symbol_position"),
      wallet_decimal: field(form, "wallet_decimal"),
    });
    if (answer.status !== 200)
      return back(c, `${BASE}/wallets`, { kind: "error", text: refusalText(answer) });
    return back(c, `${BASE}/wallets`, {
      kind: "ok",
      text: `Wallet ${answer.body.data.wallet_id} created.`,
    });
  });

  // ---- API keys ----------------------------------------------------------------------------------
  const keysPage = async (
    c: Context<AppEnv>,
    created?: Record<string, unknown>,
    notice?: Notice,
  ) => {
    const answer = await api(c, "GET", "/api-keys");
    const keys = (answer.body.data ?? []) as Record<string, unknown>[];
    return c.html(
      <Page title="API keys" session={c.var.session} current="keys" notice={notice ?? noticeOf(c)}>
        {created && (
          <section>
            <h2>Key created: copy it now, it is not shown again</h2>
            <p id="new-key" class="secret">
              {String(created.key)}
            </p>
            <button type="button" class="secondary" data-copy="new-key" hidden>
              Copy
            </button>
            <p class="muted">
              Send it as <code>Authorization: Key base64({String(created.username)}:key)</code>.
            </p>
          </section>
        )}
        <section>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>ID</th>
                  <th>Name</th>
                  <th>User</th>
                  <th>Scope</th>
                  <th>Last used</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr>
                    <td>{String(k.id)}</td>
                    <td>{String(k.name)}</td>
                    <td>{String(k.username)}</td>
                    <td>{String(k.scope)}</td>
                    <td>{String(k.last_used_at ?? "never")}</td>
                    <td>
                      {k.revoked ? (
                        "revoked"
                      ) : (
                        <form method="post" action={`${BASE}/api-keys/${k.id}/revoke`}>
                          <Csrf session={c.var.session} />
                          <button class="danger" type="submit">
                            Revoke key {String(k.id)}
                          </button>
                        </form>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        <section>
          <h2>New API key</h2>
          <form class="stack" method="post" action={`${BASE}/api-keys`}>
            <Csrf session={c.var.session} />
            <label>
              Name
              <input name="name" required autocomplete="off" />
            </label>
            <label>
              Scope
              <select name="scope">
                <option value="read-write">read-write</option>
                <option value="read">read</option>
                <option value="write">write</option>
              </select>
            </label>
            <label>
              Username (empty: you)
              <input name="username" autocomplete="off" />
            </label>
            <button type="submit">Create key</button>
          </form>
        </section>
      </Page>,
    );
  };
  app.get("/api-keys", (c) => keysPage(c));
  app.post("/api-keys", async (c) => {
    const form = await c.req.formData();
    const username = field(form, "username");
    const answer = await api(c, "POST", "/api-keys", {
      name: field(form, "name"),
      scope: field(form, "scope"),
      ...(username ? { username } : {}),
    });
    if (answer.status !== 201)
      return keysPage(c, undefined, { kind: "error", text: refusalText(answer) });
    return keysPage(c, answer.body.data as Record<string, unknown>);
  });
  app.post("/api-keys/:id{[0-9]{1,15}}/revoke", async (c) => {
    const answer = await api(c, "DELETE", `/api-keys/${c.req.param("id")}`);
    if (answer.status !== 200)
      return back(c, `${BASE}/api-keys`, { kind: "error", text: refusalText(answer) });
    return back(c, `${BASE}/api-keys`, { kind: "ok", text: `Key ${c.req.param("id")} revoked.` });
  });

  return app;
}

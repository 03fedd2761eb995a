// Users: search, and a new subscriber.

import { Hono } from "hono";
import * as v from "valibot";
import { newSubscriber, newSubscriberFields } from "../http/user-fields";
import { findUsersByText } from "../wallet/operators";
import { formatExact } from "../wallet/rules";
import { allWallets } from "../wallet/wallets";
import { appContext, attempt, backRefused } from "./api";
import type { ConsoleEnv } from "./env";
import { back, field, keptFields, noticeOf, PER_PAGE, plural } from "./page";
import { PageNumber, queryOf, Text } from "./query";
import { BASE } from "./session";
import { Csrf, Page, Pager, Table } from "./views";

export const usersScreen = new Hono<ConsoleEnv>({ strict: false });

const path = `${BASE}/users`;

/** The list's search text (its first 100 characters) and page. */
const UsersQuery = v.object({
  q: v.pipe(
    Text,
    v.transform((q) => q.slice(0, 100)),
  ),
  page: PageNumber,
});

usersScreen.get("/users", async (c) => {
  const { q, page } = queryOf(c, UsersQuery);
  const [{ rows, total }, ws] = await Promise.all([
    findUsersByText(c.var.service, q, (page - 1) * PER_PAGE, PER_PAGE),
    allWallets(c.var.service),
  ]);
  const byId = new Map(ws.map((w) => [w.id, w]));
  const notice = await noticeOf(c);
  const kept = keptFields(notice, "new-user");
  return c.html(
    <Page title="Users" session={c.var.session} current="users" notice={notice}>
      <search>
        <form method="get" action={path} class="card">
          <label>
            Search by username or e-mail
            <input name="q" type="search" value={q} />
          </label>
          <button type="submit">Search</button>
        </form>
      </search>
      <section>
        <p class="muted">
          {total === 0 && q !== "" ? `No user matches “${q}”.` : plural(total, "user")}
        </p>
        <Table class="users" cols={["Username", "E-mail", "Role", "Balances"]}>
          {rows.map((u) => {
            const balances = Object.entries(
              JSON.parse(u.balances ?? "{}") as Record<string, number>,
            );
            return (
              <tr>
                <td>
                  <a href={`${path}/${u.id}`}>{u.username}</a>
                </td>
                <td>{u.email}</td>
                <td>{u.role}</td>
                <td>
                  {balances
                    .map(([id, minor]) => {
                      const w = byId.get(id);
                      return w ? formatExact(minor, w) : `${minor} ${id}`;
                    })
                    .join(", ") || "—"}
                </td>
              </tr>
            );
          })}
        </Table>
        <Pager page={page} pages={Math.ceil(total / PER_PAGE)} path={path} query={{ q }} />
      </section>
      <section>
        <h2>New user</h2>
        <form class="stack" method="post" action={path}>
          <Csrf session={c.var.session} />
          <label>
            Username
            <input name="username" required autocomplete="off" value={kept.username} />
          </label>
          <label>
            Email
            <input
              name="user_email"
              type="email"
              required
              autocomplete="off"
              value={kept.user_email}
            />
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
usersScreen.post("/users", async (c) => {
  const { form } = c.var;
  const typed = { username: field(form, "username"), user_email: field(form, "user_email") };
  const created = await attempt(c, async () =>
    newSubscriber(
      c.var.service,
      await newSubscriberFields().read(appContext(c), {
        ...typed,
        user_password: String(form.user_password ?? ""),
      }),
    ),
  );
  // Refused, the form is drawn again as typed, but for the password.
  if (!created.ok)
    return backRefused(c, path, "New user", created.refusal, { form: "new-user", fields: typed });
  return back(c, `${path}/${created.value.id}`, { kind: "ok", text: "User created." });
});

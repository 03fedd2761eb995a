// Users: search, and a new subscriber.

import { Hono } from "hono";
import * as v from "valibot";
import { ERROR_KEYS, newSubscriber, newSubscriberFields } from "../http/user-fields";
import { firstChars } from "../text";
import { findUsersByText } from "../wallet/operators";
import { formatExact } from "../wallet/rules";
import { allWallets } from "../wallet/wallets";
import { appContext, attempt, backRefused, fieldWords } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { back, field, noticeOf, PER_PAGE, plural, type Wallet } from "./page";
import { PageNumber, queryOf, Text } from "./query";
import { BASE } from "./session";
import { Field, NewForm, type Notice, Page, Pager, refusedForm, Table } from "./views";

export const usersScreen = new Hono<ConsoleEnv>({ strict: false });

const path = `${BASE}/users`;

/** The list's search text (its first 100 characters) and page. */
const UsersQuery = v.object({
  q: v.pipe(
    Text,
    v.transform((q) => firstChars(q, 100)),
  ),
  page: PageNumber,
});

/** What the users page draws: the search, the page of users it found, and every wallet. */
type Search = {
  q: string;
  page: number;
  found: Awaited<ReturnType<typeof findUsersByText>>;
  wallets: Wallet[];
};

/** The users found, each with its balances, and the pager. */
function Found(props: { d: Search }) {
  const { q, page, found, wallets } = props.d;
  const { rows, total } = found;
  const byId = new Map(wallets.map((w) => [w.id, w]));
  return (
    <section>
      <p class="muted">
        {total === 0 && q !== "" ? `No user matches “${q}”.` : plural(total, "user")}
      </p>
      {/* None found: the line above says so, or the pager (a page past the last). */}
      <Table
        class="stacked users"
        cols={["ID", "Username", "E-mail", "Role", "Balances"]}
        empty={null}
      >
        {rows.map((u) => {
          const balances = Object.entries(JSON.parse(u.balances ?? "{}") as Record<string, number>);
          return (
            <tr>
              <td>{u.id}</td>
              <td>
                <a href={`${path}/${u.id}`}>{u.username}</a>
              </td>
              <td>{u.email}</td>
              <td>
                {u.role}
                {u.signsIn ? null : <span class="muted"> · cannot sign in</span>}
              </td>
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
  );
}

function UsersView(props: { d: Search; session: Session; notice: Notice }) {
  const { session } = props;
  const refused = refusedForm(props.notice, "new-user");
  return (
    <Page title="Users" session={session} current="users" notice={props.notice}>
      <search>
        <form method="get" action={path} class="card">
          <label>
            <span>Search by id, username or e-mail</span>
            <input name="q" type="search" value={props.d.q} />
          </label>
          <button type="submit">Search</button>
        </form>
      </search>
      <Found d={props.d} />
      <NewForm title="New user" action={path} session={session} button="Create user">
        <Field label="Username" name="username" refused={refused} required autocomplete="off" />
        <Field
          label="Email"
          name="user_email"
          refused={refused}
          type="email"
          required
          autocomplete="off"
        />
        <Field
          label="Password"
          name="user_password"
          refused={refused}
          type="password"
          required
          autocomplete="new-password"
        />
      </NewForm>
    </Page>
  );
}

usersScreen.get("/users", async (c) => {
  const { q, page } = queryOf(c, UsersQuery);
  const [found, wallets] = await Promise.all([
    findUsersByText(c.var.service, { text: q, offset: (page - 1) * PER_PAGE, limit: PER_PAGE }),
    allWallets(c.var.service),
  ]);
  const d = { q, page, found, wallets };
  return c.html(<UsersView d={d} session={c.var.session} notice={await noticeOf(c)} />);
});
/** The form's name of each field the plugin's words name otherwise (`user_login`: `username`). */
const FORM_NAMES = Object.fromEntries(Object.entries(ERROR_KEYS).map(([name, key]) => [key, name]));

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
  // Refused, the form is drawn again as typed, but for the password; the fields it is about are
  // named as the plugin named them (`user_login`), the form's by their own names.
  if (!created.ok) {
    const why = Object.fromEntries(
      Object.entries(fieldWords(created.refusal)).map(([key, w]) => [FORM_NAMES[key] ?? key, w]),
    );
    return backRefused(c, path, "New user", created.refusal, {
      form: "new-user",
      fields: typed,
      at: Object.keys(why),
      why,
    });
  }
  return back(c, `${path}/${created.value.id}`, { kind: "ok", text: "User created." });
});

// API keys: the list, a new key (shown once), revocation.

import { type Context, Hono } from "hono";
import { refusalText } from "./api";
import type { ConsoleEnv } from "./env";
import { api, back, field, noticeOf } from "./page";
import { BASE } from "./session";
import { Csrf, type Notice, Page } from "./views";

export const apiKeysScreen = new Hono<ConsoleEnv>({ strict: false });

const keysPage = async (
  c: Context<ConsoleEnv>,
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
apiKeysScreen.get("/api-keys", (c) => keysPage(c));
apiKeysScreen.post("/api-keys", async (c) => {
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
apiKeysScreen.post("/api-keys/:id{[0-9]{1,15}}/revoke", async (c) => {
  const answer = await api(c, "DELETE", `/api-keys/${c.req.param("id")}`);
  if (answer.status !== 200)
    return back(c, `${BASE}/api-keys`, { kind: "error", text: refusalText(answer) });
  return back(c, `${BASE}/api-keys`, { kind: "ok", text: `Key ${c.req.param("id")} revoked.` });
});

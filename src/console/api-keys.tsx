// API keys: the list, a new key (shown once), revocation, through the service's key verbs.

import { Hono } from "hono";
import { ApiKeyParams } from "../http/fields";
import { parseFields } from "../http/validation";
import { issueApiKey, listKeys, REVOKED_KEY_LINGERS_S, revokeKey } from "../wallet/api-keys";
import { LAST_USE_BEHIND_S } from "../wallet/key-principal";
import { attempt, backRefused } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { back, backWithSecret, fieldsOf, noticeOf, secretOf } from "./page";
import { withIds } from "./path-ids";
import { BASE } from "./session";
import {
  Choice,
  CopyButton,
  Field,
  NewForm,
  type Notice,
  Page,
  PostButton,
  refusedForm,
  Table,
  When,
} from "./views";

export const apiKeysScreen = new Hono<ConsoleEnv>({ strict: false });

type Created = { secret: string; username: string };

const page = `${BASE}/api-keys`;

type Keys = Awaited<ReturnType<typeof listKeys>>;

/** Every key, with its owner, when it was last used, and a Revoke button while it works. */
function KeysTable(props: { keys: Keys; session: Session }) {
  return (
    // On a phone (console.css) its cells stack, Revoke under the last use.
    <Table
      class="stacked keys"
      cols={["ID", "Name", "User", "Scope", "Last used (UTC)", "State"]}
      empty="No API keys yet."
    >
      {props.keys.map(({ key: k, username }) => (
        <tr>
          <td>{String(k.id)}</td>
          <td>{k.name}</td>
          <td>{username}</td>
          <td>{k.scope}</td>
          <td>{k.lastUsedAtMs === null ? "never" : <When ms={k.lastUsedAtMs} to="second" />}</td>
          <td>
            {k.revokedAtMs !== null ? (
              "revoked"
            ) : (
              <PostButton
                session={props.session}
                action={`${page}/${k.id}/revoke`}
                kind="danger"
                confirm={`Revoke key ${k.id} (${k.name})? Every client using it is refused within ${REVOKED_KEY_LINGERS_S} seconds, and a key cannot be restored.`}
              >
                Revoke key {String(k.id)}
              </PostButton>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}

function ApiKeysView(props: {
  /** A new key and its owner, shown once. */
  created: Created | undefined;
  keys: Keys;
  session: Session;
  notice: Notice;
}) {
  const { created, session } = props;
  const refused = refusedForm(props.notice, "new-key");
  return (
    <Page title="API keys" session={session} current="keys" notice={props.notice}>
      {created && (
        <section>
          <h2>Key created: copy it now, it is not shown again</h2>
          <p id="new-key" class="secret">
            {created.secret}
          </p>
          <CopyButton target="new-key" />
          <p class="muted">
            Send it as <code>Authorization: Key base64({created.username}:key)</code>.
          </p>
        </section>
      )}
      <section>
        <KeysTable keys={props.keys} session={session} />
        {props.keys.length > 0 && (
          <p class="muted">
            Last used may be up to {LAST_USE_BEHIND_S} seconds behind the latest use of a key.
          </p>
        )}
      </section>
      <NewForm title="New API key" action={page} session={session} button="Create key">
        <Field label="Name" name="name" refused={refused} required autocomplete="off" />
        <Choice
          label="Scope"
          name="scope"
          refused={refused}
          required
          options={(kept) =>
            ["read-write", "read", "write"].map((scope) => (
              <option value={scope} selected={scope === kept}>
                {scope}
              </option>
            ))
          }
        />
        <Field label="Username (empty: you)" name="username" refused={refused} autocomplete="off" />
      </NewForm>
    </Page>
  );
}

apiKeysScreen.get("/api-keys", async (c) => {
  const created = (await secretOf(c)) as Created | undefined;
  const keys = await listKeys(c.var.service);
  const notice = await noticeOf(c);
  return c.html(
    <ApiKeysView created={created} keys={keys} session={c.var.session} notice={notice} />,
  );
});
apiKeysScreen.post("/api-keys", async (c) => {
  const typed = fieldsOf(c.var.form, ["name", "scope", "username"]);
  // No username: the key is the operator's own.
  const { username, ...own } = typed;
  const issued = await attempt(c, () =>
    issueApiKey(c.var.service, parseFields(ApiKeyParams, username ? typed : own)),
  );
  // Refused, the list draws the form again as typed (after a redirect: a reload posts nothing).
  // An unknown user is the username typed (the refusal's words name no field).
  if (!issued.ok)
    return backRefused(c, page, "New API key", issued.refusal, {
      form: "new-key",
      fields: typed,
      at: issued.reason?.code === "user_not_found" ? ["username"] : undefined,
    });
  const { secret, username: owner } = issued.value;
  return backWithSecret(c, page, { secret, username: owner }, `Key created for ${owner}.`);
});
apiKeysScreen.post(
  "/api-keys/:id/revoke",
  withIds(["id"], async (c, { id }) => {
    const revoked = await attempt(c, () => revokeKey(c.var.service, id));
    if (!revoked.ok) return backRefused(c, page, "Revocation", revoked.refusal);
    return back(c, page, { kind: "ok", text: `Key ${id.ref} revoked.` });
  }),
);

// Webhooks (docs/events.md): each endpoint, how its deliveries stand, its recent attempts with a
// resend button, a test message, and a new endpoint (its secret shown once). All through the API.

import { type Context, Hono } from "hono";
import { refusalText } from "./api";
import type { ConsoleEnv } from "./env";
import { api, back, field, noticeOf } from "./page";
import { BASE } from "./session";
import { Csrf, type Notice, Page } from "./views";

export const webhooksScreen = new Hono<ConsoleEnv>({ strict: false });

type Row = Record<string, unknown>;

/** The newest attempts shown per endpoint (the API keeps 200). */
const SHOWN = 10;

const when = (iso: unknown) =>
  String(iso ?? "")
    .slice(0, 19)
    .replace("T", " ");

function Deliveries(props: { c: Context<ConsoleEnv>; hook: Row; rows: Row[] }) {
  if (props.rows.length === 0) return <p class="muted">No deliveries yet.</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>Event</th>
            <th>Attempt</th>
            <th>Status</th>
            <th>HTTP</th>
            <th>Latency</th>
            <th>Resend</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((d) => (
            <tr>
              <td>{when(d.created_at)}</td>
              <td>{d.event_id === null ? `${String(d.trigger)}` : String(d.event_id)}</td>
              <td>{String(d.attempt)}</td>
              <td>{d.error ? `${String(d.status)}: ${String(d.error)}` : String(d.status)}</td>
              <td>{String(d.http_status ?? "none")}</td>
              <td>{`${String(d.latency_ms)} ms`}</td>
              <td>
                {d.event_id !== null && (
                  <form method="post" action={`${BASE}/webhooks/${props.hook.id}/resend`}>
                    <Csrf session={props.c.var.session} />
                    <input type="hidden" name="event_id" value={String(d.event_id)} />
                    <button class="secondary" type="submit">
                      Resend event {String(d.event_id)}
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const webhooksPage = async (c: Context<ConsoleEnv>, created?: Row, notice?: Notice) => {
  const answer = await api(c, "GET", "/webhooks");
  const hooks = (answer.body.data ?? []) as Row[];
  const logs = await Promise.all(
    hooks.map(async (h) => {
      const res = await api(c, "GET", `/webhooks/${h.id}/deliveries?limit=${SHOWN}`);
      return (res.body.data ?? []) as Row[];
    }),
  );
  return c.html(
    <Page
      title="Webhooks"
      session={c.var.session}
      current="webhooks"
      notice={notice ?? noticeOf(c)}
    >
      {created && (
        <section>
          <h2>Webhook created: copy its signing secret now, it is not shown again</h2>
          <p id="new-secret" class="secret">
            {String(created.secret)}
          </p>
          <button type="button" class="secondary" data-copy="new-secret" hidden>
            Copy
          </button>
        </section>
      )}
      {hooks.length === 0 && <p>No webhooks yet.</p>}
      {hooks.map((h, i) => (
        <section>
          <h2>{`Webhook ${String(h.id)}: ${String(h.url)}`}</h2>
          <p class="muted">
            {`${(h.events as string[]).join(", ")}. ${h.status === "failing" ? `Failing since ${when(h.failing_since)} UTC` : "Active"}; delivered up to event ${String(h.last_event_id)}`}
            {Number(h.failed_attempts) > 0 &&
              `; ${String(h.failed_attempts)} failed attempt(s) at the next event, retried at ${when(h.next_attempt_at)} UTC`}
            {h.description ? `. ${String(h.description)}` : ""}
          </p>
          <Deliveries c={c} hook={h} rows={logs[i]!} />
          <div class="forms">
            <form method="post" action={`${BASE}/webhooks/${h.id}/test`}>
              <Csrf session={c.var.session} />
              <button class="secondary" type="submit">
                Send a test to webhook {String(h.id)}
              </button>
            </form>
            <form method="post" action={`${BASE}/webhooks/${h.id}/delete`}>
              <Csrf session={c.var.session} />
              <button class="danger" type="submit">
                Delete webhook {String(h.id)}
              </button>
            </form>
          </div>
        </section>
      ))}
      <section>
        <h2>New webhook</h2>
        <form class="stack" method="post" action={`${BASE}/webhooks`}>
          <Csrf session={c.var.session} />
          <label>
            URL (https://)
            <input name="url" type="url" required autocomplete="off" />
          </label>
          <label>
            Events, comma-separated
            <input name="events" value="transaction.created" required autocomplete="off" />
          </label>
          <label>
            Description
            <input name="description" autocomplete="off" />
          </label>
          <button type="submit">Create webhook</button>
        </form>
      </section>
    </Page>,
  );
};

const page = `${BASE}/webhooks`;

webhooksScreen.get("/webhooks", (c) => webhooksPage(c));
webhooksScreen.post("/webhooks", async (c) => {
  const form = await c.req.formData();
  const answer = await api(c, "POST", "/webhooks", {
    url: field(form, "url"),
    events: field(form, "events"),
    description: field(form, "description"),
  });
  if (answer.status !== 201)
    return webhooksPage(c, undefined, { kind: "error", text: refusalText(answer) });
  return webhooksPage(c, answer.body.data as Row);
});
webhooksScreen.post("/webhooks/:id{[0-9]{1,15}}/test", async (c) => {
  const answer = await api(c, "POST", `/webhooks/${c.req.param("id")}/test`);
  if (answer.status !== 200) return back(c, page, { kind: "error", text: refusalText(answer) });
  const d = answer.body.data as Row;
  return back(c, page, {
    kind: d.status === "delivered" ? "ok" : "error",
    text: `Test to webhook ${c.req.param("id")}: ${String(d.status)}${d.error ? ` (${String(d.error)})` : ""}.`,
  });
});
webhooksScreen.post("/webhooks/:id{[0-9]{1,15}}/resend", async (c) => {
  const form = await c.req.formData();
  const answer = await api(c, "POST", `/webhooks/${c.req.param("id")}/resend`, {
    event_id: field(form, "event_id"),
  });
  if (answer.status !== 200) return back(c, page, { kind: "error", text: refusalText(answer) });
  const d = answer.body.data as Row;
  return back(c, page, {
    kind: d.status === "delivered" ? "ok" : "error",
    text: `Event ${String(d.event_id)} sent again: ${String(d.status)}${d.error ? ` (${String(d.error)})` : ""}.`,
  });
});
webhooksScreen.post("/webhooks/:id{[0-9]{1,15}}/delete", async (c) => {
  const answer = await api(c, "DELETE", `/webhooks/${c.req.param("id")}`);
  if (answer.status !== 200) return back(c, page, { kind: "error", text: refusalText(answer) });
  return back(c, page, { kind: "ok", text: `Webhook ${c.req.param("id")} deleted.` });
});

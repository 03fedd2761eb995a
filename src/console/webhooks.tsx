// Webhooks (docs/events.md): each endpoint, how its deliveries stand, its recent attempts with a
// resend button, a test message, and a new endpoint (its secret shown once). Each through the
// service's webhook verbs (wallet/webhooks.ts), as the signed-in operator.

import { Hono } from "hono";
import type { DeliveryRow, EndpointRow } from "../db/events";
import { ResendParams, WebhookParams } from "../http/fields";
import { parseFields } from "../http/validation";
import {
  createEndpoint,
  removeEndpoint,
  resendEvent,
  testEndpoint,
  webhooksWithDeliveries,
} from "../wallet/webhooks";
import { attempt, backRefused } from "./api";
import type { ConsoleEnv, Session } from "./env";
import { back, backWithSecret, field, fieldsOf, noticeOf, secretOf } from "./page";
import { withIds } from "./path-ids";
import { BASE } from "./session";
import {
  CopyButton,
  Empty,
  Field,
  NewForm,
  type Notice,
  Page,
  PostButton,
  refusedForm,
  Table,
  When,
} from "./views";

export const webhooksScreen = new Hono<ConsoleEnv>({ strict: false });

const page = `${BASE}/webhooks`;

/** The newest attempts shown per endpoint (the API keeps 200). */
const SHOWN = 10;

type Delivery = Omit<DeliveryRow, "id">;

function Deliveries(props: { session: Session; hook: EndpointRow; rows: Delivery[] }) {
  return (
    // Narrower than it needs (console.css), its cells stack, Resend on a line of its own.
    <Table
      class="stacked deliveries"
      cols={["When (UTC)", "Event", "Attempt", "Status", "HTTP", "Latency", "Resend"]}
      lines={["Resend"]}
      empty="No deliveries yet."
    >
      {props.rows.map((d) => (
        <tr>
          <td>
            <When ms={d.createdAtMs} to="second" />
          </td>
          <td>{d.eventId === null ? d.trigger : String(d.eventId)}</td>
          <td>{String(d.attempt)}</td>
          <td>{d.error ? `${d.status}: ${d.error}` : d.status}</td>
          <td>{String(d.httpStatus ?? "none")}</td>
          <td>{`${d.latencyMs} ms`}</td>
          <td class="line">
            {d.eventId !== null && (
              <PostButton
                session={props.session}
                action={`${page}/${props.hook.id}/resend`}
                kind="secondary"
                fields={{ event_id: String(d.eventId) }}
              >
                Resend event {String(d.eventId)}
              </PostButton>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** An endpoint: how its deliveries stand, its recent attempts, and its test and delete buttons. */
function Endpoint(props: { hook: EndpointRow; deliveries: Delivery[]; session: Session }) {
  const { hook: h, session } = props;
  return (
    <section>
      <h2>{`Webhook ${h.id}: ${h.url}`}</h2>
      <p class="muted">
        {`${h.eventTypes.join(", ")}. `}
        {h.failingSinceMs === null ? (
          "Active"
        ) : (
          <>
            Failing since <When ms={h.failingSinceMs} to="second" /> UTC
          </>
        )}
        {/* The cursor: every event up to it was delivered, dead-lettered, of another type or older
            than the endpoint, so the next one sent comes after it. */}
        {`; sends events after event ${h.cursorEventId}`}
        {h.headAttempts > 0 && (
          <>
            {`; ${h.headAttempts} failed attempt(s) at the next event, next try not before `}
            <When ms={h.nextAttemptAtMs} to="second" /> UTC
          </>
        )}
      </p>
      {h.description && <p>{h.description}</p>}
      <Deliveries session={session} hook={h} rows={props.deliveries} />
      {/* Send a test and Delete side by side, at the card's start. */}
      <div class="buttons">
        <PostButton session={session} action={`${page}/${h.id}/test`} kind="secondary">
          Send a test to webhook {String(h.id)}
        </PostButton>
        <PostButton
          session={session}
          action={`${page}/${h.id}/delete`}
          kind="danger"
          confirm={`Delete webhook ${h.id} (${h.url})? It gets no more events but one already on its way, and the deletion cannot be undone.`}
        >
          Delete webhook {String(h.id)}
        </PostButton>
      </div>
    </section>
  );
}

function WebhooksView(props: {
  /** A new endpoint's signing secret, shown once. */
  secret: string | undefined;
  hooks: Awaited<ReturnType<typeof webhooksWithDeliveries>>;
  session: Session;
  notice: Notice;
}) {
  const { secret, session } = props;
  const refused = refusedForm(props.notice, "new-webhook");
  return (
    <Page title="Webhooks" session={session} current="webhooks" notice={props.notice}>
      {secret && (
        <section>
          <h2>Webhook created: copy its signing secret now, it is not shown again</h2>
          <p id="new-secret" class="secret">
            {secret}
          </p>
          <CopyButton target="new-secret" />
        </section>
      )}
      {props.hooks.length === 0 && <Empty>No webhooks yet.</Empty>}
      {props.hooks.map(({ hook, deliveries }) => (
        <Endpoint hook={hook} deliveries={deliveries} session={session} />
      ))}
      <NewForm title="New webhook" action={page} session={session} button="Create webhook">
        <Field
          label="URL (https://)"
          name="url"
          refused={refused}
          // Drawn again empty (POST /webhooks), which looks lost unless it says why.
          hint={
            props.notice?.refused?.form === "new-webhook"
              ? {
                  id: "url-not-kept",
                  text: "Type the URL again: a refused form comes back without it, as its path or query may hold the receiver's secret.",
                }
              : undefined
          }
          type="url"
          required
          autocomplete="off"
        />
        <Field
          label="Events, comma-separated"
          name="events"
          refused={refused}
          value="transaction.created"
          required
          autocomplete="off"
        />
        <Field label="Description" name="description" refused={refused} autocomplete="off" />
      </NewForm>
    </Page>
  );
}

webhooksScreen.get("/webhooks", async (c) => {
  const secret = (await secretOf(c))?.secret;
  const hooks = await webhooksWithDeliveries(c.var.service, SHOWN);
  const notice = await noticeOf(c);
  return c.html(
    <WebhooksView secret={secret} hooks={hooks} session={c.var.session} notice={notice} />,
  );
});

/** A test's or a resend's delivery told: `what`, then delivered, or failed and why. */
const sent = (what: string, d: Delivery): NonNullable<Notice> => ({
  kind: d.status === "delivered" ? "ok" : "error",
  text: `${what}: ${d.status}${d.error ? ` (${d.error})` : ""}.`,
});

webhooksScreen.post("/webhooks", async (c) => {
  const typed = fieldsOf(c.var.form, ["url", "events", "description"]);
  const made = await attempt(c, () =>
    createEndpoint(c.var.service, parseFields(WebhookParams, typed)),
  );
  // Refused, the list draws the form again as typed (after a redirect: a reload posts nothing), but
  // for the URL: its path and query are often the receiver's secret, and the notice's cookie that
  // carries the fields is signed, not sealed.
  const { url: _, ...kept } = typed;
  if (!made.ok)
    return backRefused(c, page, "New webhook", made.refusal, { form: "new-webhook", fields: kept });
  return backWithSecret(
    c,
    page,
    { secret: made.value.secret },
    `Webhook ${made.value.endpoint.id} created.`,
  );
});
webhooksScreen.post(
  "/webhooks/:id/test",
  withIds(["id"], async (c, { id }) => {
    const tested = await attempt(c, () => testEndpoint(c.var.service, id));
    if (!tested.ok) return backRefused(c, page, "Test", tested.refusal);
    return back(c, page, sent(`Test to webhook ${id.ref}`, tested.value));
  }),
);
webhooksScreen.post(
  "/webhooks/:id/resend",
  withIds(["id"], async (c, { id }) => {
    const resent = await attempt(c, () =>
      resendEvent(c.var.service, {
        webhook: id,
        eventId: parseFields(ResendParams, { event_id: field(c.var.form, "event_id") }).event_id,
      }),
    );
    if (!resent.ok) return backRefused(c, page, "Resend", resent.refusal);
    return back(c, page, sent(`Event ${resent.value.eventId} sent again`, resent.value));
  }),
);
webhooksScreen.post(
  "/webhooks/:id/delete",
  withIds(["id"], async (c, { id }) => {
    const removed = await attempt(c, () => removeEndpoint(c.var.service, id));
    if (!removed.ok) return backRefused(c, page, "Deletion", removed.refusal);
    return back(c, page, { kind: "ok", text: `Webhook ${id.ref} deleted.` });
  }),
);

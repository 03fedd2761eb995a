// The operator console at /wallet-admin/: server-rendered pages over the service's verbs (./api.ts),
// the operator's own reads among them (wallet/operators.ts). Administrators only; forms carry a CSRF
// token and, for money, an idempotency key made when the form was drawn, so a double submit moves
// money once.
import { type Context, Hono } from "hono";
import { limitBody, MAX_BODY_BYTES } from "../http/body-limit";
import { onError } from "../http/errors";
import { showHidden } from "../wallet/wallets";
import { appContext } from "./api";
import { apiKeysScreen } from "./api-keys";
import { CSS, ICON, JS } from "./assets";
import { batchScreen } from "./batch";
import { consoleBoundary } from "./boundary";
import { requireSettings } from "./configured";
import type { ConsoleEnv } from "./env";
import { outboxScreen } from "./outbox";
import { overviewScreen } from "./overview";
import { CSP } from "./page";
import { notFound } from "./path-ids";
import { BASE } from "./session";
import { requireOperator, signInScreen } from "./sign-in";
import { statementScreen } from "./statement";
import { userScreen } from "./user";
import { holdsScreen } from "./user-holds";
import { moneyScreen } from "./user-money";
import { usersScreen } from "./users";
import { Page } from "./views";
import { walletsScreen } from "./wallets";
import { webhooksScreen } from "./webhooks";

/** A field's value attribute as Hono writes it (a `"` inside is `&quot;`, in text too). */
const FIELD_VALUE = /( value="[^"]*")/;

/** The console's pages, one module a screen. */
export function consoleRoutes() {
  const app = new Hono<ConsoleEnv>({ strict: false });
  app.use(async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CSP);
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
  });
  app.use(consoleBoundary);
  // Stored text a page draws (a username, a wallet's name or symbol, a note: from the API or a
  // WordPress import) shows its control, bidirectional and invisible characters as their codes:
  // a right-to-left override in a symbol would draw ₦12.50 as 05.21₦, one in a username would
  // reverse the rest of its line. The console's own words hold none, so its whole page is read,
  // but a field's value: what the operator typed (a refused form drawn again, a search), which
  // reorders nothing outside its field and, sent again, must be the same text.
  app.use(async (c, next) => {
    await next();
    if (c.res.headers.get("Content-Type")?.startsWith("text/html")) {
      const parts = (await c.res.text()).split(FIELD_VALUE);
      const drawn = parts.map((part, i) => (i % 2 === 1 ? part : showHidden(part))).join("");
      c.res = new Response(drawn, c.res);
    }
  });
  // The API's body limit, after the origin check (a foreign form is refused before it is read) and
  // answered as a page of the console's, with its headers.
  app.use(limitBody<ConsoleEnv>(tooLarge));
  app.get("/console.css", (c) => c.body(CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));
  app.get("/console.js", (c) =>
    c.body(JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  app.get("/icon.svg", (c) => c.body(ICON, 200, { "Content-Type": "image/svg+xml" }));
  app.use(requireSettings);
  app.route("/", signInScreen);
  // Everything below needs an administrator's session (and a form's CSRF token).
  app.use(requireOperator);
  app.route("/", overviewScreen);
  app.route("/", usersScreen);
  app.route("/", userScreen);
  app.route("/", moneyScreen);
  app.route("/", statementScreen);
  app.route("/", holdsScreen);
  app.route("/", batchScreen);
  app.route("/outbox", outboxScreen);
  app.route("/", walletsScreen);
  app.route("/", apiKeysScreen);
  app.route("/", webhooksScreen);
  // A console address that names no screen: a page saying so, not the API's JSON 404.
  app.all("*", notFound);
  // A fault is a page too, never the API's JSON.
  app.onError(faultPage);
  return app;
}

/** A form past the body limit, which no form of the console's needs: read no further. */
const tooLarge = (c: Context<ConsoleEnv>) =>
  c.html(
    <Page title="Too large">
      <p>
        The form was larger than {MAX_BODY_BYTES / 1024} KiB, so it was not read: nothing was done.{" "}
        <a href={`${BASE}/`}>Go to the overview</a>.
      </p>
    </Page>,
    413,
  );

/**
 * A fault while drawing a page or acting on a form: the service's own answer to it (http/errors.ts
 * onError logs it and chooses the status: 503 for a busy database or Durable Object, or for what the
 * operator must set up first, `missing`; else 500), shown as a page.
 */
async function faultPage(err: Error, c: Context<ConsoleEnv>) {
  // The console's context is the app's, with the session and the form beside.
  const answer = await onError(err, appContext(c));
  const { message, error } = (await answer.json()) as { message: string; error: unknown };
  const requestId = c.get("requestId");
  return c.html(
    <Page title={message} session={c.var.session}>
      <p>
        The service could not finish this: {message}.{" "}
        {answer.status === 503 ? "Try again in a moment. " : ""}
        Look at the page before you send a form again. Request id <code>{requestId}</code> names it
        in the service's log. <a href={`${BASE}/`}>Go to the overview</a>.
      </p>
      {answer.status === 503 && typeof error === "object" && error !== null && "retry" in error ? (
        <p class="muted">{String(error.retry)}</p>
      ) : null}
      {typeof error === "object" && error !== null && "missing" in error ? (
        <p class="muted">
          Its operator must first set up: {String(error.missing)} (<code>GET /health</code> says
          what is missing too).
        </p>
      ) : null}
    </Page>,
    answer.status as 500 | 503,
    Object.fromEntries(
      [...answer.headers].filter(([name]) => name.toLowerCase() === "retry-after"),
    ),
  );
}

import { raw } from "hono/html";
import type { Child, JSX } from "hono/jsx";
import type { Session } from "./env";
import { BASE } from "./session";

const NAV = [
  ["overview", "Overview", `${BASE}/`],
  ["users", "Users", `${BASE}/users`],
  ["wallets", "Wallets", `${BASE}/wallets`],
  ["keys", "API keys", `${BASE}/api-keys`],
  ["webhooks", "Webhooks", `${BASE}/webhooks`],
  ["outbox", "Outbox", `${BASE}/outbox`],
] as const;

/**
 * A notice a page shows once; a refusal may carry the refused form's fields (`form`, the action they
 * were sent to), so the page draws that form again as it was typed, and the fields it is about
 * (`at`), marked as such, each with the words (`why`) drawn under it.
 */
export type Notice =
  | {
      kind: "ok" | "error";
      text: string;
      refused?: {
        form: string;
        fields: Record<string, string>;
        at?: string[];
        why?: Record<string, string>;
      };
    }
  | undefined;

/** The notice's id, which the fields a refusal is about point at (aria-describedby). */
const NOTICE_ID = "notice";

export function Page(props: {
  title: string;
  session?: Session;
  current?: (typeof NAV)[number][0];
  notice?: Notice;
  children: Child;
}) {
  // The doctype keeps browsers in standards mode (without it, quirks mode: tables that do not inherit
  // the page's font, a margin under every form).
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${props.title} · Wallet console`}</title>
          <link rel="icon" type="image/svg+xml" href={`${BASE}/icon.svg`} />
          <link rel="stylesheet" href={`${BASE}/console.css`} />
          <script src={`${BASE}/console.js`} defer />
        </head>
        <body>
          {/* The first stop of Tab, shown when focused: past the console's links to the page itself. */}
          {props.session && (
            <a class="skip" href="#main">
              Skip to main content
            </a>
          )}
          <header>
            <strong>Wallet console</strong>
            {props.session && (
              <>
                <nav aria-label="Console">
                  <ul>
                    {NAV.map(([id, label, href]) => (
                      <li>
                        <a href={href} aria-current={props.current === id ? "page" : undefined}>
                          {label}
                        </a>
                      </li>
                    ))}
                  </ul>
                </nav>
                <form method="post" action={`${BASE}/sign-out`}>
                  <Csrf session={props.session} />
                  <span class="muted">{props.session.principal.username} </span>
                  <button class="secondary" type="submit">
                    Sign out
                  </button>
                </form>
              </>
            )}
          </header>
          <main id="main">
            <h1>{props.title}</h1>
            {/* What became of the form just sent takes focus as the page opens, so a screen
                reader reads it first (a live region present from the start is not announced),
                and Tab goes on from it into the page. */}
            {props.notice && (
              <p
                id={NOTICE_ID}
                class={`notice ${props.notice.kind}`}
                role={props.notice.kind === "error" ? "alert" : "status"}
                {...focused(true)}
              >
                {props.notice.text}
              </p>
            )}
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}

/** A user as every console page names one, `bob (user 5)`: by id alone when no username is known. */
export const userName = (id: number, username: string | undefined) =>
  username === undefined ? `user ${id}` : `${username} (user ${id})`;

/** An instant (epoch seconds) as its UTC day, `YYYY-MM-DD`. */
const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

/** A day (`YYYY-MM-DD`) as a `<time>` never broken at its hyphens (console.css). */
export const ShownDay = (props: { day: string }) => (
  <time datetime={props.day}>
    <span>{props.day}</span>
  </time>
);

/**
 * An instant (epoch milliseconds) in UTC, to the day, minute or second, as a `<time>` whose date and
 * time of day never break inside (console.css): a narrow column wraps between them or not at all,
 * never `2026-` / `11-30`.
 */
export function When(props: { ms: number; to?: "day" | "minute" | "second" }) {
  if (props.to === "day") return <ShownDay day={day(props.ms / 1000)} />;
  const iso = new Date(props.ms).toISOString(); // `2026-11-30T14:05:09.000Z`, in UTC
  const [date, time] = iso.slice(0, props.to === "second" ? 19 : 16).split("T");
  return (
    <time datetime={`${date}T${time}Z`}>
      <span>{date}</span> <span>{time}</span>
    </time>
  );
}

/** The CSRF field every console form carries, and any hidden `fields`. */
export const Csrf = (props: { session: Session; fields?: Record<string, string> }) => (
  <>
    <input type="hidden" name="_csrf" value={props.session.csrf} />
    {Object.entries(props.fields ?? {}).map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
  </>
);

/**
 * The first line of every form with a required field: what the mark after such a field's name
 * means (console.css draws it from the field's `required`, for the eye only: a screen reader is
 * told by `required` itself, so this line is for the eye as well).
 */
export const RequiredNote = () => (
  <p class="required-note" aria-hidden="true">
    Fields marked <span class="required">*</span> are required.
  </p>
);

/**
 * A list page's section that makes a new record (`New wallet`): its form, posted to `action` with
 * the CSRF field, the note on required fields, the fields, and the button that sends it.
 */
export const NewForm = (props: {
  title: string;
  action: string;
  session: Session;
  button: string;
  children: Child;
}) => (
  <section>
    <h2>{props.title}</h2>
    <form class="stack" method="post" action={props.action}>
      <Csrf session={props.session} />
      <RequiredNote />
      {props.children}
      <button type="submit">{props.button}</button>
    </form>
  </section>
);

/**
 * The form `form` as its refusal left it (`Notice.refused`), to draw it again: `kept`, the fields as
 * typed, and `fault(name)`, the attributes that mark field `name` invalid, described by the notice,
 * when the refusal is about it (`Notice.refused.at`). Nothing when the notice is another form's or
 * no refusal. A form keeps what an operator typed but never a password, nor a webhook's URL (which
 * can hold the receiver's secret).
 */
export function refusedForm(notice: Notice, form: string) {
  const refused = notice?.refused?.form === form ? notice.refused : undefined;
  return {
    kept: refused?.fields ?? {},
    fault: (name: string) =>
      refused?.at?.includes(name)
        ? ({ "aria-invalid": "true", "aria-describedby": NOTICE_ID } as const)
        : {},
    /** The words drawn under field `name`, when the refusal is about it and says them. */
    why: (name: string) => (refused?.at?.includes(name) ? refused.why?.[name] : undefined),
  };
}

/**
 * A field's label as its refusal's words name it: the label without what follows a comma or an
 * opening parenthesis (`URL (https://)`: `URL`; `Events, comma-separated`: `Events`).
 */
const namedAs = (label: string) => label.split(/,| \(/)[0]!;

/** What the API's words name that no field of a console form holds: a transfer's sender is the page's user. */
const PAGE_FIELDS: Record<string, string> = { from_user_id: "this user" };

/**
 * A refusal's words for a form, each field the API names (`to_user_id requires an integer`) by its
 * form's label (`labels`: `{ to_user_id: "To user" }`): `To user requires an integer`. Only a
 * field's first mention in each of the words (joined by `; `) is its name: a wallet id or a day
 * further on may spell one (`amount has more decimal places than wallet amount allows (2)`).
 */
export function inLabels(words: string, labels: Record<string, string>) {
  return words
    .split("; ")
    .map((part) =>
      Object.entries(labels).reduce(
        (text, [name, label]) => text.replace(new RegExp(`\\b${name}\\b`), () => namedAs(label)),
        part,
      ),
    )
    .join("; ");
}

/**
 * Why a field was refused, right under it, naming fields by their labels, not the API's names: the
 * notice above the page says it too, but a field far down a phone's page is then seen marked
 * without its words. For the eye only: the field is described by the notice, so a screen reader
 * hears it once.
 */
const FieldWhy = (props: { refused: RefusedForm | undefined; name: string; label: string }) => {
  const why = props.refused?.why(props.name);
  return why === undefined ? null : (
    <p class="field-error" aria-hidden="true">
      {inLabels(why, { ...PAGE_FIELDS, [props.name]: props.label })}
    </p>
  );
};

/** A form as `refusedForm` draws it again: what it kept, and the marks on a field at fault. */
export type RefusedForm = ReturnType<typeof refusedForm>;

/**
 * The form an amount is typed in, as the API reads it, for a hint beside an amount's field: a
 * thousands separator is refused in words (`requires a valid amount`) that do not say so.
 */
export const AMOUNT_FORM = "digits and a dot, no commas: 1000.50";

/** A field's marks (`RefusedForm.fault`) with its hint, element `hintId`, among what describes it. */
export const hinted = (marks: { "aria-describedby"?: string }, hintId: string) => ({
  ...marks,
  "aria-describedby": [marks["aria-describedby"], hintId].filter(Boolean).join(" "),
});

/**
 * A text field of a form that may come back refused, under its label: `<input>` with `name`, then
 * the attributes given, in their order, then the value `refused` kept for it, then its marks if the
 * refusal is about it. A `value` given is what the form shows until something is kept, and stays
 * where it is written (a kept value takes its place), so a field may draw it before others. A
 * password is never drawn again, whatever was kept. No `refused`: a form that is never drawn again
 * (a reversal's note). A `hint` (what the field takes: an amount's form) is drawn under it, after
 * any refusal's words, and describes the field, as the notice does when the field is at fault.
 */
export function Field(
  props: {
    label: string;
    name: string;
    refused?: RefusedForm;
    /** Its words and their id, unique on the page. */
    hint?: { id: string; text: string };
  } & JSX.IntrinsicElements["input"],
) {
  const { label, name, refused, hint, ...attributes } = props;
  const kept = attributes.type === "password" ? undefined : refused?.kept[name];
  const fault = refused?.fault(name) ?? {};
  const marks = hint ? hinted(fault, hint.id) : fault;
  // `value` set after the spread keeps the place the spread gave it, if it gave one.
  return (
    <>
      <label>
        <span>{label}</span>
        <input name={name} {...attributes} value={kept ?? attributes.value} {...marks} />
      </label>
      <FieldWhy refused={refused} name={name} label={label} />
      {hint && (
        <p class="hint" id={hint.id}>
          {hint.text}
        </p>
      )}
    </>
  );
}

/**
 * A list to choose from in a form that may come back refused, under its label: `<select>` with
 * `name`, the attributes given, its marks if the refusal is about it, and the `options` drawn for the
 * value it kept (undefined: nothing kept).
 */
export function Choice(
  props: {
    label: string;
    name: string;
    refused: RefusedForm;
    options: (kept: string | undefined) => Child;
  } & JSX.IntrinsicElements["select"],
) {
  const { label, name, refused, options, ...attributes } = props;
  return (
    <>
      <label>
        <span>{label}</span>
        <select name={name} {...attributes} {...refused.fault(name)}>
          {options(refused.kept[name])}
        </select>
      </label>
      <FieldWhy refused={refused} name={name} label={label} />
    </>
  );
}

/**
 * A Copy button for the text of element `target` (a secret shown once), shown by the console's
 * script, which copies; and a live region beside it, there from the start, which says that it was
 * copied, or not, so a screen reader is told while focus stays on the button.
 */
export const CopyButton = (props: { target: string }) => (
  <p class="buttons">
    <button type="button" class="secondary" data-copy={props.target} hidden>
      Copy
    </button>
    <span role="status" id={`${props.target}-copied`} />
  </p>
);

/** A form of one button that posts to `action`, with the CSRF field and any hidden `fields`. */
export function PostButton(props: {
  session: Session;
  action: string;
  kind?: "danger" | "secondary";
  fields?: Record<string, string>;
  /** A question the browser asks before sending (console.js): for what cannot be undone. */
  confirm?: string;
  children: Child;
}) {
  return (
    <form method="post" action={props.action} data-confirm={props.confirm}>
      <Csrf session={props.session} fields={props.fields} />
      <button class={props.kind} type="submit">
        {props.children}
      </button>
    </form>
  );
}

/**
 * A confirmation page's form, for what moves money and cannot be taken back (a reversal, a
 * transfer): what it is about to do, figure by figure as the ledger reads them (`rows`), what that
 * means, and the button that does it; nothing has happened until it is pressed. `fields` ride along
 * hidden, the idempotency key among them, so a double click on either page acts once.
 */
export function Confirmation(props: {
  session: Session;
  action: string;
  /** The details table's name for a screen reader. */
  label: string;
  rows: [Child, Child][];
  fields?: Record<string, string>;
  /** What it means, and any field of its own (a reversal's note). */
  children: Child;
  /** The button that does it, and the way back. */
  confirm: Child;
  cancel: Child;
}) {
  return (
    <form class="stack card" method="post" action={props.action}>
      <Details label={props.label} rows={props.rows} />
      {props.children}
      <Csrf session={props.session} fields={props.fields} />
      <div class="buttons">
        {props.confirm}
        {props.cancel}
      </div>
    </form>
  );
}

/**
 * The attributes of what a page opens for, when `yes` (a notice, a statement asked for): it has
 * focus as the page opens, so a screen reader reads it first and Tab goes on from it; not a control
 * (no Tab stop of its own, no focus ring: console.css).
 */
export const focused = (yes: boolean) => (yes ? ({ tabindex: -1, autofocus: true } as const) : {});

/**
 * A record's figures, a label and a value a row; `num`: the values are amounts (right-aligned);
 * `focus`: what the page opens for (`focused`), as a statement asked for is; not a confirmation's
 * figures, whose first Tab would otherwise be the button that moves the money.
 */
export const Details = (props: {
  label: string;
  rows: [Child, Child][];
  num?: boolean;
  focus?: boolean;
}) => (
  <table class="figures" aria-label={props.label} {...focused(props.focus ?? false)}>
    <tbody>
      {props.rows.map(([label, value]) => (
        <tr>
          <th>{label}</th>
          <td class={props.num ? "num" : undefined}>{value}</td>
        </tr>
      ))}
    </tbody>
  </table>
);

/** What a list says when it has nothing to show (a table, the webhooks, the outbox). */
export const Empty = (props: { children: Child }) => <p class="muted">{props.children}</p>;

/** Whether children drawn hold anything: a row, not only empty lists and nothing. */
const hasRow = (child: unknown): boolean =>
  Array.isArray(child)
    ? child.some(hasRow)
    : child !== null && child !== undefined && child !== false;

/**
 * Rows under one header row, scrolling sideways on a narrow screen. Columns named in `num` hold
 * figures (right-aligned); `actions` adds a last column for each row's buttons (`Action`); `class`
 * names the table for a layout of its own (console.css): `stacked` and its own class, stacked on
 * a screen narrower than it needs, where the columns named in `lines` take a line each (their
 * cells say so too, `class="line"`, as a figure's say `num`). Without a row it is no table, which
 * would be a header row alone, but `empty`'s words (`No API keys yet.`); null where the page says
 * it already (a search that matched no one, a page past the last) or the table always has a row (a
 * batch's legs).
 */
export function Table(props: {
  cols: string[];
  num?: string[];
  actions?: boolean;
  caption?: string;
  class?: string;
  lines?: string[];
  empty: string | null;
  children: Child;
}) {
  const classOf = (col: string) =>
    [props.num?.includes(col) && "num", props.lines?.includes(col) && "line"]
      .filter(Boolean)
      .join(" ") || undefined;
  if (!hasRow(props.children)) return props.empty === null ? null : <Empty>{props.empty}</Empty>;
  return (
    <div class="scroll">
      <table class={props.class}>
        {props.caption && <caption>{props.caption}</caption>}
        <thead>
          <tr>
            {props.cols.map((col) => (
              <th class={classOf(col)}>{col}</th>
            ))}
            {props.actions && (
              <th class={classOf("Action")}>
                <span class="muted">Action</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/**
 * Links to the pages before and after `page` of `pages`: `path` with the page's declared parameters
 * (`query`: a search, a statement's wallet and days) and another page number; `at`, the id of the
 * section listed, where the browser lands. A page past the last (an old link, a number typed in the
 * address) lists nothing, so it says so and links to the last.
 */
export function Pager(props: {
  page: number;
  pages: number;
  path: string;
  query: Record<string, string>;
  at?: string;
  /** The query parameter naming the page (a page with two lists pages each by its own). */
  param?: string;
  /** The navigation's name: each pager of a page has its own. */
  label?: string;
}) {
  const param = props.param ?? "page";
  const href = (page: number) =>
    `${props.path}?${new URLSearchParams({ ...props.query, [param]: String(page) })}${props.at ? `#${props.at}` : ""}`;
  const last = Math.max(props.pages, 1);
  if (props.page > last)
    return (
      <p class="notice error" role="status">
        There is no page {props.page}: the last is <a href={href(last)}>page {last}</a>.
      </p>
    );
  if (last === 1) return null;
  return (
    <nav class="pager" aria-label={props.label ?? "Pages"}>
      {props.page > 1 && <a href={href(props.page - 1)}>Previous</a>}
      <span>
        Page {props.page} of {props.pages}
      </span>
      {props.page < props.pages && <a href={href(props.page + 1)}>Next</a>}
    </nav>
  );
}

type Line = { label: string; dash?: string; points: { x: number; y: number }[] };

/**
 * What the ends of a chart's time axis say, first and last instant (epoch seconds) in UTC: their
 * days, or within a day their times, to the minute, to the second where that is all that differs,
 * the first with its day and the last with its own only if another; one label where they are one
 * second. Within a day, the same day at both ends would say nothing of when its entries were made.
 */
function spanLabels(firstS: number, lastS: number): [string, string] {
  // Each `YYYY-MM-DD hh:mm:ss`: to the day its first 10 characters, to the minute 16.
  const [a, b] = [firstS, lastS].map((s) =>
    new Date(s * 1000).toISOString().slice(0, 19).replace("T", " "),
  ) as [string, string];
  if (lastS - firstS >= 86_400) return [a.slice(0, 10), b.slice(0, 10)];
  if (a === b) return [a, ""];
  const to = a.slice(0, 16) === b.slice(0, 16) ? 19 : 16;
  return [a.slice(0, to), b.slice(a.slice(0, 10) === b.slice(0, 10) ? 11 : 0, to)];
}

/**
 * The least distance from the zero line, in the chart's units, at which a figure that is not zero
 * is drawn: to scale it may lie a fraction of a unit off the line (a balance of 5 beside a peak of
 * a million), drawn on it as if it were zero. 6 units keep its line clear of the axis's on a
 * phone, where the chart is drawn at about half its size.
 */
const OFF_ZERO = 6;

/**
 * A line chart as SVG: each line drawn with its own dash pattern and named in the legend, so it
 * reads without colour; the figures themselves are in a table beside it. The amount axis is named
 * (`yLabel`) and marked at its bottom, zero and top with amounts as `yFormat` writes them; a figure
 * that is not zero is drawn at least OFF_ZERO from the zero line where the plot has room. The time
 * axis is marked at its ends (`xSpan`, the first and the last point's instants) as `spanLabels`
 * writes them.
 */
export function Chart(props: {
  title: string;
  lines: Line[];
  xSpan: [number, number];
  yLabel: string;
  yFormat: (y: number) => string;
}) {
  const all = props.lines.flatMap((l) => l.points);
  if (all.length === 0) return <Empty>Nothing to chart yet.</Empty>;
  const [minX, maxX] = [Math.min(...all.map((p) => p.x)), Math.max(...all.map((p) => p.x))];
  const [minY, maxY] = [Math.min(0, ...all.map((p) => p.y)), Math.max(...all.map((p) => p.y), 1)];
  const ticks = [...new Set([minY, 0, maxY])].map((y) => ({ y, text: props.yFormat(y) }));
  // Room for the text at its largest (console.css: 20 units on a phone, where the chart is drawn
  // at about half its size): the longest amount left of the axis, the legend's rows above the plot.
  const longest = Math.max(...ticks.map((t) => [...t.text].length));
  const [w, h, right, bottom] = [600, 200, 16, 32];
  const [left, top] = [36 + longest * 12, 16 + props.lines.length * 24];
  const sx = (x: number) => left + ((x - minX) / (maxX - minX || 1)) * (w - left - right);
  const scaled = (y: number) => h - bottom - ((y - minY) / (maxY - minY || 1)) * (h - top - bottom);
  // Off the zero line, but never past the plot's edge (a small figure beside a far larger one on
  // the other side of zero then stays on its edge, as near the line as the plot allows).
  const inPlot = (at: number) => Math.min(h - bottom, Math.max(top, at));
  const sy = (y: number) =>
    inPlot(
      y > 0
        ? Math.min(scaled(y), scaled(0) - OFF_ZERO)
        : y < 0
          ? Math.max(scaled(y), scaled(0) + OFF_ZERO)
          : scaled(0),
    );
  const xLabels = spanLabels(...props.xSpan);
  // A line's pen, the same in the plot and in the legend that names it.
  const pen = (l: Line) => ({ stroke: "#1d2330", "stroke-width": "2", "stroke-dasharray": l.dash });
  return (
    <svg class="chart" viewBox={`0 0 ${w} ${h}`} role="img" aria-label={props.title}>
      <title>{props.title}</title>
      <line x1={left} y1={sy(0)} x2={w - right} y2={sy(0)} stroke="#b8bfcc" />
      <line x1={left} y1={sy(minY)} x2={left} y2={sy(maxY)} stroke="#b8bfcc" />
      <text
        class="axis-title"
        x={22}
        y={(top + h - bottom) / 2}
        transform={`rotate(-90 22 ${(top + h - bottom) / 2})`}
        text-anchor="middle"
      >
        {props.yLabel}
      </text>
      {ticks.map((t) => (
        <text class="tick" x={left - 6} y={sy(t.y)} dominant-baseline="middle" text-anchor="end">
          {t.text}
        </text>
      ))}
      {props.lines.map((l) =>
        // A line of one point (a user's first entry) draws nothing as a polyline: a dot marks it.
        l.points.length === 1 ? (
          <circle
            cx={sx(l.points[0]!.x).toFixed(1)}
            cy={sy(l.points[0]!.y).toFixed(1)}
            r="4"
            fill={pen(l).stroke}
          />
        ) : (
          <polyline
            fill="none"
            {...pen(l)}
            points={l.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ")}
          />
        ),
      )}
      <text x={left} y={h - 6}>
        {xLabels[0]}
      </text>
      {xLabels[1] && (
        <text x={w - right} y={h - 6} text-anchor="end">
          {xLabels[1]}
        </text>
      )}
      {props.lines.map((l, i) => (
        <>
          <line x1={left} y1={12 + i * 24} x2={left + 40} y2={12 + i * 24} {...pen(l)} />
          <text x={left + 48} y={12 + i * 24} dominant-baseline="middle">
            {l.label}
          </text>
        </>
      ))}
    </svg>
  );
}

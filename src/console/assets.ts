// The console's only stylesheet and script, served by the Worker (the Content-Security-Policy allows
// nothing inline and nothing from elsewhere).

/**
 * The stacked layout (described above its uses below) of the table of classes `stacked` and
 * `table`, on a screen `width` wide or narrower (16 px to a media query's rem): each table stacks
 * below the width it needs; `own` sets its columns. `:where` keeps the selectors as specific as
 * `.stacked` alone, so the table's own rules, after them, win.
 */
function stackedBelow(width: string, table: string, own: string) {
  const t = `.stacked:where(.${table})`;
  return `@media (max-width: ${width}) {
  ${t} { display: grid; }
  ${t} :is(thead, tbody, tr) { display: grid; grid-column: 1 / -1; grid-template-columns: subgrid; }
  ${t} tr { border-bottom: 1px solid var(--line); }
  ${t} :is(th, td) { border: 0; }
  ${t} :is(th, td):nth-child(odd) { grid-row: 1; padding-bottom: 0; }
  ${t} :is(th, td):nth-child(even) { grid-row: 2; }
  ${t} :is(th, td).line { grid-row: auto; grid-column: 1 / -1; padding-top: 0; }
  /* A request id longer than the line breaks rather than widen the table. */
  ${t} .line code { white-space: normal; overflow-wrap: anywhere; }
  ${t} td.note { min-width: 0; }${own}
}`;
}

export const CSS = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #f6f7f9;
  --accent: #1f5fbf; --bad: #a4262c; --good: #1b6e3a; font: 15px/1.45 system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1.25rem;
  background: #fff; border-bottom: 1px solid var(--line); }
header strong { font-size: 1.05rem; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 600; text-decoration: none; color: var(--ink); }
header form { margin-left: auto; }
/* 84rem: at 1280 px a user's entries of millions (₦12,345,678.90), their wallet ngn_savings, fit
   their card, Reverse included. */
main { max-width: 84rem; margin: 0 auto; padding: 1.25rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 0; }
section, .card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
:is(section, .card) > h2:first-child { margin-top: 0; }
.grid { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); margin-bottom: 1rem; }
/* Its gap alone between its cards, as between any two cards (a card's own margin would add to it). */
.grid > * { margin-bottom: 0; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
time > span { white-space: nowrap; }
td code { white-space: nowrap; font-size: .8em; }
td.note { min-width: 12rem; }
/* A title of the data's (a webhook's URL, a wallet's name) breaks anywhere rather than widen the page. */
h1, h2, .name { overflow-wrap: anywhere; }
/* A username in a table breaks anywhere only past a short name's width: never "admi n". */
td:has(> .name) { min-width: 7ch; }
td button { white-space: nowrap; }
/* A table wider than the screen scrolls sideways: a shadow at the edge it hides more past. */
.scroll { overflow-x: auto; background: linear-gradient(90deg, #fff 30%, #fff0) left / 2rem 100%,
  linear-gradient(270deg, #fff 30%, #fff0) right / 2rem 100%,
  radial-gradient(farthest-side at 0 50%, #0003, #0000) left / .75rem 100%,
  radial-gradient(farthest-side at 100% 50%, #0003, #0000) right / .75rem 100%;
  background-repeat: no-repeat; background-attachment: local, local, scroll, scroll; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
form.stack { display: grid; gap: .6rem; max-width: 26rem; align-content: start; }
form.stack p { margin: 0; }
label { display: grid; gap: .2rem; font-weight: 500; }
/* A field's border, all that marks it out on its card: 3:1 or more on white (WCAG 1.4.11). */
input, select, button { font: inherit; padding: .45rem .6rem; border: 1px solid #858e9e; border-radius: 6px; }
/* A select is as wide as its longest option (a wallet's name of 100 characters) unless it may shrink. */
select { min-width: 0; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
/* Focus: a dark ring (3:1 and more on every background here) over a yellow one that marks it. */
:focus-visible { outline: 3px solid var(--ink); outline-offset: 2px; box-shadow: 0 0 0 2px #f0b400; }
.skip { position: absolute; left: .5rem; top: -5rem; z-index: 1; padding: .5rem .75rem; background: #fff; border-radius: 6px; }
.skip:focus { top: .5rem; }
.notice { padding: .6rem .8rem; border-radius: 6px; margin-bottom: 1rem; border: 1px solid; }
/* A notice, or a statement asked for, has focus as its page opens only to be read first (views.tsx
   focused): a message, not a control, no ring. */
[tabindex="-1"]:focus-visible { outline: none; box-shadow: none; }
.notice.error { color: var(--bad); background: #fdf0f0; border-color: #f1c4c6; }
.notice.ok { color: var(--good); background: #eff8f2; border-color: #bfe3cb; }
.muted { color: var(--muted); }
/* A required field's mark after its name (the span before it), drawn from its own required: for
   the eye only (no words after the slash), as a screen reader is told by required itself; the line
   that explains it at the top of its form (views.tsx RequiredNote). */
label > span:has(+ :required)::after { content: "*"; content: "*" / ""; margin-left: .2em; }
label > span:has(+ :required)::after, .required { color: var(--bad); font-weight: 600; }
.required-note { color: var(--muted); font-size: .9em; margin: 0 0 .25rem; }
form.inline > .required-note { flex-basis: 100%; margin: 0; }
.secret { font-family: ui-monospace, monospace; word-break: break-all; background: var(--bg); padding: .5rem; border-radius: 6px; }
.forms { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); }
svg.chart { width: 100%; height: auto; max-height: 15rem; }
/* A chart is drawn to the page's width: on a phone at half its size or less, so its text is larger. */
svg.chart text { font-size: 12px; fill: var(--muted); }
@media (max-width: 48rem) { svg.chart text { font-size: 15px; } }
@media (max-width: 30rem) { svg.chart text { font-size: 20px; } }
svg.chart text.axis-title { fill: var(--ink); }
/* The statement's row: fields and buttons level at their tops, the buttons a name's height down, all
   of one height, so a refused day's words stand under their field, as wide as it, the row whole. */
form.inline { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: start; margin-bottom: .75rem; }
form.inline > .field { display: grid; gap: .2rem; }
form.inline > .field > .notice { width: 0; min-width: 100%; margin: 0; }
form.inline > .buttons { margin-top: calc(1.45em + .2rem); }
form.inline :is(select, input, button) { height: 2.6rem; }
[aria-invalid="true"] { border-color: var(--bad); box-shadow: 0 0 0 1px var(--bad); }
/* Why a field was refused, right under it (views.tsx FieldWhy). */
form p.field-error { color: var(--bad); font-size: .9em; margin: -.35rem 0 0; }
/* What a field takes (an amount's form), under it and any words of its refusal (views.tsx Field). */
p.hint { color: var(--muted); font-size: .9em; }
form.stack p.hint { margin-top: -.35rem; }
table.figures { max-width: 30rem; }
/* A username or a note of one long word breaks anywhere: the card keeps the screen's width. */
table.figures td { overflow-wrap: anywhere; }
caption { text-align: left; font-weight: 600; padding: .75rem 0 .25rem; }
/* A hold's amount, Capture and Void on one line (on a narrower screen: below, stackedBelow). */
.actions { display: flex; gap: .8rem; }
.actions form { display: flex; gap: .4rem; }
.actions input { width: 6rem; }
/* A confirmation's or a webhook's buttons, side by side. */
.buttons { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: center; }
.pager { display: flex; gap: 1rem; align-items: center; margin-top: .75rem; }
@media (max-width: 40rem) { main { padding: .5rem; } section, .card { padding: .75rem; } th, td { padding: .35rem .3rem; } }
/* A table too wide for its card (class stacked, its columns set by its own class below), on a
   screen too narrow for it (stackedBelow): its cells two to a column, each pair's second under its
   first, the header row as each row, so a header stays over its cells; a cell marked line (a row's
   buttons, a request id) on a line of its own beneath them, as wide as the table (after the paired
   cells: pairs go by a cell's position). No sideways scrolling to reach a row's buttons, and still
   a table to a screen reader (subgrid: every row's columns are the table's). */
${stackedBelow(
  "40rem",
  "users",
  `
  /* Users: the id beside both lines, e-mail under username, balances under role. */
  .users { grid-template-columns: min-content minmax(0, 1fr) min-content; }
  .users :is(th, td):first-child { grid-row: 1 / span 2; padding-bottom: .35rem; }
  .users :is(th, td):nth-child(even) { grid-row: 1; padding-bottom: 0; }
  .users :is(th, td):nth-child(odd):not(:first-child) { grid-row: 2; padding-bottom: .35rem; }
  .users :is(th, td):is(:nth-child(2), :nth-child(3)) { overflow-wrap: anywhere; }`,
)}
${stackedBelow(
  "40rem",
  "keys",
  `
  /* A key: name under id, scope under user, Revoke under last used. */
  .keys { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) min-content; }
  .keys :is(th, td):nth-child(-n+4) { overflow-wrap: anywhere; }`,
)}
/* A webhook's deliveries take 630 px, 699 px of screen. */
${stackedBelow(
  "48rem",
  "deliveries",
  `
  /* A delivery: event under time, status under attempt, latency under HTTP; Resend. */
  .deliveries { grid-template-columns: min-content minmax(0, 1fr) min-content; }
  /* An error's reference, one long word, breaks anywhere within its column. */
  .deliveries td:nth-child(4) { overflow-wrap: anywhere; }`,
)}
/* A user's holds of millions (₦1,234,567.89) take 969 px, 1038 px of screen. */
${stackedBelow(
  "68rem",
  "holds",
  `
  /* A hold: wallet under id, status under amount, expiry; then its note, then Capture and Void. */
  .holds { grid-template-columns: min-content minmax(0, 1fr) min-content; }
  /* Void under Capture where a hold's id is too long for both on the line (320 px, hold 123456). */
  .holds .actions { flex-wrap: wrap; gap: .4rem; }`,
)}
/* A user's entries of millions (₦12,345,678.90) in ngn_payroll take 1165 px, 1234 px of screen;
   at 1280 px (80rem) they fit. */
${stackedBelow(
  "78rem",
  "entries",
  `
  /* An entry: date under id, wallet under type, balance after under amount; then its note,
     request id and Reverse. */
  .entries { grid-template-columns: min-content minmax(0, 1fr) min-content; }`,
)}
`;

/**
 * The console's only script: copy buttons (a new secret), which say in their live region
 * (views.tsx CopyButton) whether it was copied, emptied first so a second copy is told too; a
 * question before a form marked `data-confirm` is sent (`data-confirm-typed` instead, where the
 * form's amount is typed, naming it as typed); and each form posted once: a second click
 * while the answer is on its way would send it again (a second key, a second webhook), but a page
 * the Back button shows from the browser's cache may post again. Without the script the forms
 * still work, unasked.
 */
export const JS = `
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  const told = document.getElementById(button.dataset.copy + "-copied");
  button.addEventListener("click", async () => {
    told.textContent = "";
    const text = document.getElementById(button.dataset.copy).textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
      told.textContent = "Copied.";
    } catch {
      told.textContent = "Not copied: select it and copy it yourself.";
    }
  });
}
for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    const typed = form.elements.amount?.value.trim();
    const asked = typed && form.dataset.confirmTyped
      ? form.dataset.confirmTyped.replace("%s", () => typed)
      : form.dataset.confirm;
    if (!confirm(asked)) event.preventDefault();
  });
}
for (const form of document.querySelectorAll('form[method="post"]')) {
  form.addEventListener("submit", (event) => {
    if (event.defaultPrevented) return;
    if (form.dataset.sent) event.preventDefault();
    else form.dataset.sent = "yes";
  });
}
addEventListener("pageshow", () => {
  for (const form of document.querySelectorAll("form[data-sent]")) delete form.dataset.sent;
});
`;

/** The console's icon: a wallet's card on the accent colour (browsers ask for one on every page). */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f5fbf"/><rect x="6" y="10" width="20" height="13" rx="2" fill="#fff"/><rect x="18" y="14.5" width="8" height="4" rx="1" fill="#1f5fbf"/></svg>`;

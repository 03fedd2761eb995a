// The import report as text for a terminal or a log (the CLI can also write it as JSON).
import { MAX_LISTED, type Report, type TallyJson, type TrashedPosts } from "./report";

/**
 * A line as the terminal shows it: control characters (an escape sequence moves the cursor and
 * clears lines) and bidirectional marks in the dump's text are written as `\uXXXX`, so no value
 * can hide or reorder the report an operator reads before importing.
 */
export const visible = (line: string) =>
  line.replace(
    /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/gu,
    (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`,
  );

const n = (value: number | undefined) => Number(value ?? 0).toLocaleString("en-US");
const list = (counts: Record<string, number> | undefined) =>
  Object.entries(counts ?? {})
    .map(([k, v]) => `${k} ${n(v)}`)
    .join(", ") || "none";

/** How many of each list the text shows (of balance differences, five times as many). */
const LIMIT = 20;

function tally(lines: string[], title: string, t: TallyJson | undefined) {
  if (!t || t.total === 0) return;
  lines.push(`  ${title} (${n(t.total)}):`);
  for (const [reason, count] of Object.entries(t.byReason))
    lines.push(`    ${n(count)} × ${reason}`);
  const examples = t.examples.slice(0, LIMIT);
  if (examples.length > 0) {
    lines.push(
      `    e.g. ${examples.map(({ reason: _, ...rest }) => JSON.stringify(rest)).join(" ")}${t.total > examples.length ? " …" : ""}`,
    );
  }
}

/**
 * Plain text of planImport's report, printed before anything is written: what a run that writes
 * will write, or what a dry run or a refused one would have.
 */
export function formatReport(r: Report, { dryRun = false, target = "no database (dry run)" } = {}) {
  const lines: string[] = [];
  const t = r.transactions;
  const writes = !dryRun && !(r.refused && !r.options.force);
  const verb = writes ? "to import" : "would import";
  const places = Object.entries(r.options.places)
    .map(([id, n]) => `, --places ${id}=${n}`)
    .join("");
  lines.push(
    `WordPress import report — prefix ${r.options.prefix}${r.options.usersPrefix === r.options.prefix ? "" : ` (users ${r.options.usersPrefix})`}, namespace ${r.options.namespace}, balances from ${r.options.balances}${places}${r.options.force ? ", --force" : ""}`,
  );
  lines.push(`  Target: ${target}`);
  lines.push(`  Rows read: ${list(r.tables)}`);
  lines.push(
    `  Users: ${n(r.users.inDump)} in the dump; ${n(r.users.imported)} ${verb}, ${n(r.users.alreadyPresent)} already there, ${n(r.users.skipped.total)} skipped`,
  );
  lines.push(
    `    roles (administrator stays administrator, every other role becomes subscriber): ${list(r.users.roles)}`,
  );
  lines.push(
    `    password hashes (kept; each user signs in with the same password, upgraded to PBKDF2 then): ${list(r.users.passwordHashes)}`,
  );
  const collisions = r.users.loginCollisions;
  if (collisions.total > 0) {
    lines.push(
      `    usernames that are another user's e-mail (${n(collisions.total)}; imported as they are): that text signs in and names the e-mail's owner, so these users sign in with their own e-mail`,
    );
    for (const c of collisions.list.slice(0, LIMIT))
      lines.push(
        `      user ${c.userId} (${c.username}): the e-mail of user ${c.emailOwnerId} (${c.emailOwner})`,
      );
    if (collisions.total > Math.min(collisions.list.length, LIMIT))
      lines.push(
        `      … ${n(collisions.total - Math.min(collisions.list.length, LIMIT))} more in the JSON report (--report FILE)`,
      );
  }
  lines.push(
    `  Wallets: ${n(r.wallets.inDump)} in the dump; ${n(r.wallets.imported)} ${verb}, ${n(r.wallets.alreadyPresent)} already there, ${n(r.wallets.skipped.total)} skipped`,
  );
  lines.push(
    `  Transactions: ${n(t.live)} live (not trashed, but for withdrawals the site decided; ${n(t.credits)} credits, ${n(t.debits)} debits, ${n(t.transfers)} transfers); ` +
      `${n(t.imported)} ${verb}, ${n(t.alreadyPresent)} already there, ${n(t.skipped.total)} skipped`,
  );
  if (t.withoutRequestId > 0)
    lines.push(
      `    ${n(t.withoutRequestId)} have no request_id (imported without an idempotency key)`,
    );
  const extra = (r.wallets.storage ?? []).filter(
    (w) => w.storageDecimals > w.decimals || w.placesNeeded > w.storageDecimals || w.chosen,
  );
  if (extra.length > 0) {
    lines.push(
      "  Storage precision (amounts with more places than their wallet displays are kept exactly where it stores them; displays round):",
    );
    for (const w of extra) {
      const fits = w.placesNeeded <= w.storageDecimals;
      const why = [w.present && "as the database has it", w.chosen && "--places"].filter(Boolean);
      lines.push(
        `    ${w.walletId}: shows ${w.decimals} decimals, stores ${w.storageDecimals}` +
          (why.length > 0 ? ` (${why.join(", ")})` : "") +
          (fits
            ? ""
            : w.chosen
              ? `; the site's amounts need ${w.placesNeeded}: the histories holding those are not imported`
              : `; the site's amounts need ${w.placesNeeded}: not imported`),
      );
    }
  }
  const a = r.adjustments;
  lines.push(
    `  Adjustment entries ${writes ? "to add" : "it would add"}: ${n(a.balance)} balance (made only with --balances site)` +
      (a.alreadyPresent ? `; ${n(a.alreadyPresent)} already there` : ""),
  );
  const carried = writes ? "carried over" : "to carry over";
  tally(lines, `Changes on the site to users already here, ${carried}`, r.users.updated);
  tally(
    lines,
    "Users imported unable to sign in or be mailed a password reset, as WordPress refused them",
    r.users.signInDisabled,
  );
  tally(lines, "Skipped users", r.users.skipped);
  tally(lines, "Skipped wallets", r.wallets.skipped);
  tally(lines, "Skipped transactions", t.skipped);
  tally(
    lines,
    "Amounts with more decimal places than their wallet displays (kept exactly where it stores them)",
    t.subPrecisionAmounts,
  );
  tally(lines, "Transfer halves without their other half", t.openHalves);
  tally(
    lines,
    "Transfer halves imported alone (reversed before their other half's history is imported, one reverses alone)",
    t.halvesApart,
  );
  tally(lines, "Zero amounts (kept as the site recorded them)", t.zeroAmounts);
  tally(
    lines,
    "Transactions the site had not published (imported: their amounts were in its stored balances, and its lists showed them)",
    t.notPublished,
  );
  const w = r.awaitingWithdrawals;
  if (w.total > 0) {
    lines.push(
      `  Withdrawals awaiting approval on the site (${n(w.total)}): each is imported as the DEBIT the site made when it was asked for (its stored balance counts it). Pay each out as the site would have on approval; to decline one, reverse it: POST /transactions/<id>/reverse with request_id wdr_refund_<id> credits it back, as the plugin's refund did (docs/migrating.md)`,
    );
    for (const x of w.list.slice(0, LIMIT))
      lines.push(
        `    post ${x.id} of user ${x.userId} (${x.username}): ${x.walletId} ${x.amount}, asked for ${x.requestedAt} UTC`,
      );
    if (w.total > Math.min(w.list.length, LIMIT))
      lines.push(
        `    … ${n(w.total - Math.min(w.list.length, LIMIT))} more in the JSON report (--report FILE)`,
      );
  }
  if (t.metaData.entries > 0)
    lines.push(
      `  Post meta carried as meta_data: ${n(t.metaData.keys)} keys on ${n(t.metaData.entries)} entries`,
    );
  tally(lines, "Repeated meta keys (one row kept)", t.metaData.repeatedKeys);
  tally(lines, "meta_data longer than a client may send", t.metaData.pastClientLimit);
  tally(lines, "Post meta not read", t.metaData.notRead);
  tally(lines, "Duplicate request_ids", t.duplicateRequestIds);
  tally(lines, "request_ids in the import's own keys", t.reservedRequestIds);
  tally(lines, "Ignored posts", r.ignored);
  if (Object.keys(r.otherPostTypes ?? {}).length > 0)
    lines.push(`  Other post types left alone: ${list(r.otherPostTypes)}`);
  if (Object.keys(t.fieldsReadingDifferently ?? {}).length > 0) {
    lines.push(
      `  Post fields the service answers with fixed values, which differ on these posts: ${list(t.fieldsReadingDifferently)}`,
    );
  }
  const h = r.negativeHistories;
  if (h.total > 0) {
    lines.push(
      `  Histories below zero (${n(h.total)}, ${n(h.endingBelowZero)} still below zero at the end): carried over as they are, nothing added;` +
        " new debits cannot lower a balance below zero, credits raise it",
    );
    for (const x of h.list.slice(0, LIMIT)) {
      lines.push(
        `    user ${x.userId} (${x.username}) ${x.walletId}: below zero from entry ${x.firstEntryBelowZero}, lowest ${x.lowest} at entry ${x.lowestAt}, ends at ${x.balance}`,
      );
    }
    if (h.total > Math.min(h.list.length, LIMIT))
      lines.push(
        `    … ${n(h.total - Math.min(h.list.length, LIMIT))} more in the JSON report (--report FILE)`,
      );
  }
  lines.push(
    `  Balances: ${n(r.balances.compared)} site balances compared with their transactions (none stored counts as 0, as the plugin read it); ${n(r.balanceDifferences.total)} differ`,
  );
  for (const d of r.balanceDifferences.list.slice(0, LIMIT * 5)) {
    const none = d.siteStored.withdrawable === null && d.siteStored.nonwithdrawable === null;
    lines.push(
      `    user ${d.userId} (${d.username}) ${d.walletId}: site ${d.site}${none ? " (none stored)" : ""}, transactions ${d.transactions}, difference ${d.difference} → ${d.action}${trashedText(d.trashed)}`,
    );
  }
  if (r.balanceDifferences.total > LIMIT * 5)
    lines.push(
      `    … ${n(r.balanceDifferences.total - LIMIT * 5)} more in the JSON report (--report FILE)`,
    );
  tally(lines, "Stored balances not compared", r.balances.ignoredMeta);
  if (r.apiKeys.total > 0) {
    lines.push(
      `  API keys found (${n(r.apiKeys.total)}): not carried over; re-issue them with POST /api-keys and hand them to their owners`,
    );
    for (const k of r.apiKeys.list.slice(0, LIMIT))
      lines.push(
        `    post ${k.id} "${k.title}" of user ${k.userId} (${k.username ?? "unknown"})${k.status === "publish" ? "" : ` [${k.status}]`}`,
      );
  }
  for (const w of r.warnings.slice(0, LIMIT)) lines.push(`  Warning: ${w}`);
  const unshown = Math.max(r.warnings.length - LIMIT, 0) + (r.warningsNotListed ?? 0);
  if (unshown > 0)
    lines.push(
      `  … ${n(unshown)} more warnings; the JSON report (--report FILE) lists the first ${n(MAX_LISTED)}`,
    );
  if (r.conflicts.length > 0) {
    lines.push(`  Conflicts with the database (${n(r.conflicts.length)}):`);
    for (const c of r.conflicts.slice(0, LIMIT)) lines.push(`    ${c.problem}`);
    if (r.conflicts.length > LIMIT)
      lines.push(`    … ${n(r.conflicts.length - LIMIT)} more in the JSON report (--report FILE)`);
  }
  if (r.refused && !r.options.force)
    lines.push(
      `  REFUSED: ${r.refusalReasons.join("; ")}. Nothing was written. Fix the dump or the database, or run again with --force to import the rest.`,
    );
  else if (r.refused)
    lines.push(`  --force: imported the rest; left out ${r.refusalReasons.join("; ")}.`);
  return lines.map(visible).join("\n");
}

/** A difference's posts the site trashed, which its stored balance still counts (check.ts). */
function trashedText(trashed: TrashedPosts | undefined) {
  if (!trashed) return "";
  const { posts, ids } = trashed;
  const more = posts > ids.length ? ` and ${n(posts - ids.length)} more` : "";
  return posts === 1
    ? `; the site trashed post ${ids[0]} there, whose amount its stored balance still counts`
    : `; the site trashed posts ${ids.join(", ")}${more} there, whose amounts its stored balance still counts`;
}

// 4. Crash safety: under a steady stream of credits, SIGKILL the whole process group of a server of
// this section's own, restart it on the same state, and check that every acknowledged credit is there
// exactly once, that retrying the unanswered ones (same request_id) applies each at most once, and
// that every balance still equals the sum of its entries.
import { it } from "vitest";
import { startServer } from "../../scripts/lib/server";
import { balance, connect, createUser, createWallet } from "./api";
import {
  at,
  check,
  figures,
  histogram,
  minorAsNumber,
  minorText,
  note,
  pool,
  send,
  sleep,
  unique,
} from "./harness";
import { checkLedgerInvariants, d1, type Row, type Store } from "./ledger";
import { endOfSection, section } from "./section";

const SENDERS = 8;
const LOAD_MS = 3_000;

type Sent = {
  rid: string;
  minor: number;
  status: number | "pending" | "no answer";
  txnId?: unknown;
};

function groupAlive(pid: number) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Entries of one user by request key: key → { n, minor, id }. */
async function entriesByRequest(store: Store, userId: number) {
  const rows = await d1(
    store,
    `SELECT request_key AS k, count(*) AS n, sum(amount_minor) AS minor, min(id) AS id FROM transactions WHERE user_id = ${userId} GROUP BY request_key`,
  );
  return new Map<unknown, Row>(rows.map((r) => [r.k, r]));
}

const { ctx, deadlineFor, server, run } = section("crash", { ownServer: true });

it("every credit acknowledged before a SIGKILL is there once after the restart; retries apply each unanswered one at most once", async () => {
  // The kill needs a server under load whatever the sections before it took of the run's budget.
  const deadline = Math.max(deadlineFor(60_000), Date.now() + LOAD_MS + 20_000);
  const user = await createUser(ctx(), "crash");
  const wallet = await createWallet(ctx(), { prefix: "kw" });
  const tag = unique("");
  const sent: Sent[] = [];
  let stopping = false;
  let onSend: (() => void) | undefined;

  async function sender(k: number) {
    for (let n = 0; !stopping && Date.now() < deadline; n++) {
      const rec: Sent = {
        rid: `crash-${tag}-${k}-${n}`,
        minor: 1 + ((k * 7_919 + n * 104_729) % 99_999),
        status: "pending",
      };
      sent.push(rec);
      try {
        const answer = send(ctx().api, "POST", "/credits", {
          auth: ctx().adminAuth,
          json: {
            user_id: user.id,
            wallet_id: wallet,
            amount: minorText(rec.minor),
            request_id: rec.rid,
          },
          timeoutMs: 15_000,
        });
        onSend?.();
        const res = await answer;
        rec.status = res.status;
        rec.txnId = at(res.json, "data", "transaction_id");
      } catch {
        rec.status = "no answer";
      }
    }
  }

  const senders = Array.from({ length: SENDERS }, (_, k) => sender(k));
  await sleep(LOAD_MS);
  // Killed as a credit leaves, so at least that one is in flight: group commit answers the credits
  // it gathered together, and a kill just after such an answer would find none in flight.
  await new Promise<void>((resolve) => {
    onSend = resolve;
  });
  onSend = undefined;
  const pid = server().child.pid!;
  const oldBase = ctx().base;
  const killed = server().stop({ signal: "SIGKILL", keepState: true }); // signals the group at once
  stopping = true; // no new requests; the ones in flight die with the server
  await killed;
  await Promise.race([Promise.all(senders), sleep(20_000)]);

  let gone = !groupAlive(pid);
  for (let i = 0; i < 25 && !gone; i++) {
    await sleep(200);
    gone = !groupAlive(pid);
  }
  check(
    "SIGKILL took down the server's whole process group",
    gone,
    `process group ${pid} still has members`,
  );
  const refused = await fetch(`${oldBase}/wp-json/`).then(
    () => false,
    () => true,
  );
  check("nothing answers on the old port after the kill", refused);

  const acked = sent.filter((r) => r.status === 200);
  const unanswered = sent.filter((r) => r.status === "no answer" || r.status === "pending");
  const other = sent.filter(
    (r) => r.status !== 200 && r.status !== "no answer" && r.status !== "pending",
  );
  note(
    `${sent.length} credits sent by ${SENDERS} senders in ~${LOAD_MS / 1000} s: ${acked.length} answered 200 before the kill, ${unanswered.length} unanswered`,
  );
  check(
    "every credit answered before the kill was a 200",
    other.length === 0,
    histogram(other.map((r) => r.status)),
  );
  check(
    "the kill cut at least one credit in flight",
    unanswered.length >= 1,
    `${unanswered.length} unanswered`,
  );
  check(
    "the kill hit a server under load (at least 50 credits acknowledged)",
    acked.length >= 50,
    `${acked.length} acknowledged`,
  );

  // Restart on the same state (stopped with the section's other servers after it).
  const t0 = Date.now();
  const restarted = await startServer({
    persistTo: ctx().stateDir,
    config: run.config,
    logLevel: "warn",
  });
  const next = await connect(restarted, run.config);
  note(
    `restarted on the same state in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${restarted.base}`,
  );

  const afterKill = await entriesByRequest(next, user.id);
  const found = acked.filter((r) => {
    const row = afterKill.get(r.rid.toLowerCase());
    return row !== undefined && row.n === 1 && row.minor === r.minor && row.id === r.txnId;
  });
  check(
    `every acknowledged credit is present exactly once after the restart (${found.length} of ${acked.length})`,
    found.length === acked.length,
    acked
      .filter((r) => !found.includes(r))
      .slice(0, 5)
      .map((r) => `${r.rid}: ${JSON.stringify(afterKill.get(r.rid.toLowerCase()) ?? null)}`)
      .join("; "),
  );
  const known = new Set(sent.map((r) => r.rid.toLowerCase()));
  const phantoms = [...afterKill.keys()].filter((k) => !known.has(String(k)));
  check(
    "no entry the senders did not ask for, none twice",
    phantoms.length === 0 && [...afterKill.values()].every((r) => r.n === 1),
    phantoms.slice(0, 5).join(", "),
  );
  const committedUnanswered = unanswered.filter((r) => afterKill.has(r.rid.toLowerCase())).length;

  // Retry every unanswered credit with its request_id: 200 (applied now) or 409 (applied before the kill).
  const retries = await pool(unanswered, SENDERS, async (r) => {
    const res = await send(next.api, "POST", "/credits", {
      auth: next.adminAuth,
      json: { user_id: user.id, wallet_id: wallet, amount: minorText(r.minor), request_id: r.rid },
    });
    return { status: res.status, message: at(res.json, "message") };
  });
  const answered = retries.filter((x) => x !== undefined);
  const applied = answered.filter((x) => x.status === 200).length;
  const already = answered.filter(
    (x) => x.status === 409 && x.message === "Transaction already exists",
  ).length;
  check(
    `every retried credit answered 200 or 409 (${answered.length} retried: ${applied} × 200, ${already} × 409)`,
    applied + already === unanswered.length,
    histogram(answered.map((x) => x.status)),
  );
  check(
    "the 409s are exactly the credits that had been written before the kill without an answer",
    already === committedUnanswered,
    `${already} × 409, ${committedUnanswered} written but unanswered`,
  );

  const afterRetry = await entriesByRequest(next, user.id);
  const once = sent.filter(
    (r) =>
      afterRetry.get(r.rid.toLowerCase())?.n === 1 &&
      afterRetry.get(r.rid.toLowerCase())?.minor === r.minor,
  );
  check(
    `after the retries every request_id appears exactly once (${once.length} of ${sent.length}), with its amount`,
    once.length === sent.length && afterRetry.size === sent.length,
    `${afterRetry.size} request ids stored`,
  );
  const expected = sent.reduce((s, r) => s + r.minor, 0);
  const shown = await balance(next, user.id, wallet);
  check(
    `the balance equals the sum of every credit sent (${minorText(expected)})`,
    shown === minorAsNumber(expected),
    `balance ${shown}`,
  );
  await checkLedgerInvariants(next, "after the crash and the retries");

  figures.crash = {
    sent: sent.length,
    acked: acked.length,
    foundAfter: found.length,
    unanswered: unanswered.length,
    committedUnanswered,
    retried: answered.length,
    appliedByRetry: applied,
    alreadyThere: already,
  };
});

endOfSection();

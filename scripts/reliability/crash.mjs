// 4. Crash safety: under a steady stream of credits, SIGKILL the server's whole process group,
// restart it on the same state, and check that every acknowledged credit is there exactly once,
// that retrying the unanswered ones (same request_id) applies each at most once, and that every
// balance still equals the sum of its entries.

import { startServer } from "../lib/server.ts";
import { balance, connect, createUser, createWallet } from "./api.mjs";
import {
  check,
  figures,
  histogram,
  minorAsNumber,
  minorText,
  note,
  pool,
  send,
  sleep,
  startSection,
  unique,
} from "./harness.mjs";
import { checkLedgerInvariants, d1 } from "./ledger.mjs";

const SENDERS = 8;
const LOAD_MS = 3_000;

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Entries of one user by request key: { key → { n, minor, id } }. */
async function entriesByRequest(stateDir, userId) {
  const [rows] = await d1(
    stateDir,
    `SELECT request_key AS k, count(*) AS n, sum(amount_minor) AS minor, min(id) AS id FROM transactions WHERE user_id = ${userId} GROUP BY request_key`,
  );
  return new Map(rows.map((r) => [r.k, r]));
}

export async function runCrash(ctx, { deadline }) {
  startSection("crash", "4. Crash safety (SIGKILL under load, restart on the same state)");
  const user = await createUser(ctx, "crash");
  const wallet = await createWallet(ctx, { prefix: "kw" });
  const tag = unique("");
  const sent = [];
  let stopping = false;

  async function sender(k) {
    for (let n = 0; !stopping && Date.now() < deadline; n++) {
      const rec = {
        rid: `crash-${tag}-${k}-${n}`,
        minor: 1 + ((k * 7_919 + n * 104_729) % 99_999),
        status: "pending",
      };
      sent.push(rec);
      try {
        const res = await send(ctx.api, "POST", "/credits", {
          auth: ctx.adminAuth,
          json: {
            user_id: user.id,
            wallet_id: wallet,
            amount: minorText(rec.minor),
            request_id: rec.rid,
          },
          timeoutMs: 15_000,
        });
        rec.status = res.status;
        rec.txnId = res.json?.data?.transaction_id;
      } catch (error) {
        rec.status = "no answer";
        rec.error = error.cause?.code ?? error.name;
      }
    }
  }

  const senders = Array.from({ length: SENDERS }, (_, k) => sender(k));
  await sleep(LOAD_MS);
  const pid = ctx.server.child.pid;
  const oldBase = ctx.base;
  const killed = ctx.server.stop({ signal: "SIGKILL", keepState: true }); // signals the group at once
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
    "the kill hit a server under load (at least 50 credits acknowledged)",
    acked.length >= 50,
    `${acked.length} acknowledged`,
  );

  // Restart on the same state.
  const t0 = Date.now();
  const server = await startServer({
    persistTo: ctx.stateDir,
    config: ctx.config,
    logLevel: "warn",
  });
  const next = await connect(server, ctx.config);
  note(
    `restarted on the same state in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${server.base}`,
  );

  const afterKill = await entriesByRequest(next.stateDir, user.id);
  const found = acked.filter((r) => {
    const row = afterKill.get(r.rid.toLowerCase());
    return row && row.n === 1 && row.minor === r.minor && row.id === r.txnId;
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
  const phantoms = [...afterKill.keys()].filter((k) => !known.has(k));
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
    return { r, status: res.status, body: res.json };
  });
  const applied = retries.filter((x) => x.status === 200).length;
  const already = retries.filter(
    (x) => x.status === 409 && x.body?.message === "Transaction already exists",
  ).length;
  check(
    `every retried credit answered 200 or 409 (${retries.length} retried: ${applied} × 200, ${already} × 409)`,
    applied + already === unanswered.length,
    histogram(retries.map((x) => x.status)),
  );
  check(
    "the 409s are exactly the credits that had been written before the kill without an answer",
    already === committedUnanswered,
    `${already} × 409, ${committedUnanswered} written but unanswered`,
  );

  const afterRetry = await entriesByRequest(next.stateDir, user.id);
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
  await checkLedgerInvariants(next.stateDir, "after the crash and the retries");

  figures.crash = {
    sent: sent.length,
    acked: acked.length,
    foundAfter: found.length,
    unanswered: unanswered.length,
    committedUnanswered,
    retried: retries.length,
    appliedByRetry: applied,
    alreadyThere: already,
  };
  return next;
}

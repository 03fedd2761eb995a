// `npm run bench -- --webhook`: credits/s with one endpoint subscribed to transaction.created beside
// credits/s with none (the target: at least 0.9×), in interleaved rounds on ONE server.
//
// One server, not two: both sides then run the same process, the same D1 file and the same warm
// isolate, and the side that goes first alternates by round (compare.ts), so what differs is the
// endpoint. Each "with" round creates the endpoint through POST /webhooks (it starts after the
// newest event), runs the credits, waits (bounded) until the endpoint has caught up, and deletes it:
// the deliveries its credits caused happen during its load or its drain, never in a "without"
// round. The receiver is a Node server on 127.0.0.1 in this process that verifies each signature
// and answers 204 at once. Reported: each side's medians, with ÷ without, and per round what the
// receiver got during the load and by the end of the drain.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { Webhook } from "standardwebhooks";
import { adminAuth, startServer } from "../lib/server";
import { interleavedPlan, median, sideBySide } from "./compare";
import { groupCpuSeconds } from "./cost";
import { fingerprint } from "./fingerprint";
import { balanceSum, call, makeFixtures, WALLETS } from "./fixtures";
import { appScenarioMaker } from "./scenarios";
import {
  answeredAndSent,
  type BenchRun,
  finishReport,
  loadSettings,
  roundSettings,
  runMeta,
  runScenario,
  type ScenarioRun,
  servedBy,
  sideRunOf,
} from "./session";
import { type RoundDeliveries, ratioTarget, roundDelivered } from "./webhook-figures";

/** The longest wait for an endpoint to catch up after its round's load. */
const DRAIN_BOUND_S = 60;
/** No round starts after this much of the run: the whole bench stays within about 6 minutes. */
const START_NO_ROUND_AFTER_S = 240;

/** A receiver that counts each request and its webhook-id, verifies its signature, answers 204. */
function receiver() {
  let verifier: Webhook | null = null;
  const counts = { received: 0, verified: 0, ids: new Set<string>() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      counts.received++;
      counts.ids.add(String(req.headers["webhook-id"]));
      try {
        verifier?.verify(Buffer.concat(chunks).toString("utf8"), req.headers as never);
        if (verifier) counts.verified++;
      } catch {
        // counted as received, not verified
      }
      res.writeHead(204).end();
    });
  });
  return {
    counts,
    /** Starts a new round's counts, verified with the new endpoint's secret. */
    reset(secret: string) {
      verifier = new Webhook(secret);
      Object.assign(counts, { received: 0, verified: 0, ids: new Set<string>() });
    },
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the worker's keep-alive connections would hold close open
      }),
  };
}

const fixed = (n: number | undefined, digits: number) =>
  n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits);

export async function benchWebhook({ log, stopping, startedMs }: BenchRun) {
  const load = loadSettings();
  const { durationS, warmupS, rounds, connections } = roundSettings({
    connections: 32,
    maxRounds: 5,
  });
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();
  const meta = runMeta({
    mode: "webhook",
    durationS,
    warmupS,
    rounds,
    connections,
    devtools: load.devtools,
    host: "127.0.0.1",
  });

  const hook = receiver();
  const hookPort = await hook.listen();
  try {
    log(`starting the app (${servedBy(load.devtools)}, 127.0.0.1, webhooks allowed to 127.0.0.1)`);
    const server = await startServer({
      wranglerDev: load.devtools,
      vars: { WEBHOOK_SECRET_KEY: randomBytes(32).toString("hex"), WEBHOOK_ALLOW_LOCAL: "true" },
    });
    const auth = await adminAuth(server.api);
    log("creating users, wallets and history through the API");
    const fx = await makeFixtures({ api: server.api, auth, runId });
    const credits = appScenarioMaker(runId)(server, auth, fx).credits!;
    const api = (method: string, path: string, body?: unknown) =>
      call(server.api, auth, method, path, body);

    /** Whether the endpoint has no transaction.created left after its cursor. */
    const caughtUp = async (id: number) => {
      const list = (await api("GET", "/webhooks")).data as { id: number; last_event_id: number }[];
      const cursor = list.find((e) => e.id === id)!.last_event_id;
      const after = await api("GET", `/events?after=${cursor}&limit=1&types=transaction.created`);
      return after.data.length === 0;
    };

    // "tree" is the side with the endpoint, "ref" the side without (compare.ts's names).
    const plan = interleavedPlan(["credits"], rounds);
    const runs: (ScenarioRun & { round: number; side: "tree" | "ref"; wholeCpuMs: number })[] = [];
    const deliveries: RoundDeliveries[] = [];
    for (const [i, step] of plan.entries()) {
      if (stopping()) throw new Error("interrupted");
      if (step.side === "tree" && (Date.now() - startedMs) / 1000 > START_NO_ROUND_AFTER_S) {
        log(`round ${step.round + 1}: not started, the run is past ${START_NO_ROUND_AFTER_S}s`);
        break;
      }
      const withHook = step.side === "tree";
      let endpointId = 0;
      if (withHook) {
        const made = await api("POST", "/webhooks", {
          url: `http://127.0.0.1:${hookPort}/hook`,
          events: ["transaction.created"],
          description: "bench --webhook",
        });
        endpointId = made.data.id;
        hook.reset(made.data.secret);
      }
      const pgid = server.child.pid!;
      const cpuBefore = groupCpuSeconds(pgid);
      const run = await runScenario({
        name: `[${i + 1}/${plan.length}] round ${step.round + 1} credits ${withHook ? "with one endpoint" : "without endpoints"}`,
        base: server.base,
        request: credits.request,
        connections,
        warmupS,
        durationS,
        log,
        pgid,
      });
      // workerd CPU per credit over the whole round: warm-up, load and (with the endpoint) its drain.
      const wholeCpuMs = () =>
        ((groupCpuSeconds(pgid).workerd - cpuBefore.workerd) * 1000) / (run.sent + run.warmup.sent);
      const record = { ...run, name: "credits", round: step.round, side: step.side, wholeCpuMs: 0 };
      runs.push(record);
      if (!withHook) {
        record.wholeCpuMs = wholeCpuMs();
        continue;
      }

      const duringLoad = hook.counts.received;
      const drainStart = Date.now();
      let drained = await caughtUp(endpointId);
      while (!drained && Date.now() - drainStart < DRAIN_BOUND_S * 1000 && !stopping()) {
        await new Promise((r) => setTimeout(r, 500));
        drained = await caughtUp(endpointId);
      }
      const drainS = (Date.now() - drainStart) / 1000;
      record.wholeCpuMs = wholeCpuMs();
      await api("DELETE", `/webhooks/${endpointId}`);
      const { answered200, sent } = answeredAndSent([record]);
      const { received, verified, ids } = hook.counts;
      const round = {
        round: step.round,
        answered200,
        sent,
        received,
        distinct: ids.size,
        verified,
        duringLoad,
        drained,
        drainS,
      };
      deliveries.push(round);
      log(
        `  receiver: ${duringLoad} during the load, ${received} (${ids.size} ids) after ${drainS.toFixed(1)}s of drain${drained ? "" : " (NOT caught up)"}; ${answered200} credits answered 200, ${sent} sent`,
      );
    }

    await new Promise((r) => setTimeout(r, 1000));
    const { answered200, sent } = answeredAndSent(runs);
    const applied =
      (await balanceSum({ api: server.api, auth, users: fx.users, wallet: WALLETS[0] })) -
      fx.duplicate.amount;
    const ledger = { answered200, sent, applied, ok: applied >= answered200 && applied <= sent };

    const sideRuns = runs.map(sideRunOf);
    const [row] = sideBySide(sideRuns);
    const target = ratioTarget(row?.reqPerSecRatio);
    const delivered = deliveries.length > 0 && deliveries.every(roundDelivered);
    const loads = runs.map((r) => r.loadavg1Before);
    const errors = sideRuns.reduce((n, r) => n + r.errors, 0);

    const out: string[] = [];
    out.push(
      `Bench --webhook: credits with one endpoint subscribed to transaction.created (a receiver on 127.0.0.1 answering 204) beside credits with none, on one server; commit ${meta.commit ?? "?"}.`,
    );
    out.push(
      `${deliveries.length} rounds with, ${runs.length - deliveries.length} without; each run ${durationS}s after ${warmupS}s warm-up, ${connections} connections, ${servedBy(load.devtools)}, ${meta.cpus} CPUs shared with the load generator and the receiver; the side that runs first alternates by round.`,
    );
    out.push("");
    out.push(
      "| side | credits/s (median) | p50 ms | p99 ms | workerd CPU ms | errors | runs (credits/s) |",
    );
    out.push("|---|---:|---:|---:|---:|---:|---|");
    for (const [side, label] of [
      ["ref", "without endpoints"],
      ["tree", "one endpoint"],
    ] as const) {
      const f = row?.[side];
      const each = runs.filter((r) => r.side === side).map((r) => fixed(r.reqPerSec, 1));
      out.push(
        `| ${label} | ${fixed(f?.reqPerSec, 1)} | ${fixed(f?.p50, 0)} | ${fixed(f?.p99, 0)} | ${fixed(f?.cpuMs, 2)} | ${f?.errors ?? "-"} | ${each.join(", ")} |`,
      );
    }
    out.push("");
    out.push(
      `with ÷ without: ${target.value}` +
        (row?.roundRatioRange
          ? ` (rounds ${fixed(row.roundRatioRange.min, 2)}–${fixed(row.roundRatioRange.max, 2)})`
          : "") +
        `; CPU per credit ${row?.cpuRatio === undefined ? "-" : `${row.cpuRatio.toFixed(2)}×`}.`,
    );
    const whole = (side: "tree" | "ref") =>
      median(runs.filter((r) => r.side === side).map((r) => r.wholeCpuMs));
    out.push(
      `workerd CPU per credit over the whole round (warm-up, load and, with the endpoint, the drain until it caught up; the drain's polling of GET /webhooks and GET /events counted against it): without ${fixed(whole("ref"), 2)} ms, with ${fixed(whole("tree"), 2)} ms (${fixed(whole("tree") / whole("ref"), 2)}×).`,
    );
    out.push("");
    out.push(
      "| round | credits answered 200 / sent | received during the load | received by the end (ids) | verified | drain s | delivered |",
    );
    out.push("|---|---:|---:|---:|---:|---:|---|");
    for (const d of deliveries)
      out.push(
        `| ${d.round + 1} | ${d.answered200} / ${d.sent} | ${d.duringLoad} | ${d.received} (${d.distinct}) | ${d.verified} | ${d.drainS.toFixed(1)}${d.drained ? "" : " (bound hit)"} | ${roundDelivered(d) ? "all" : "NOT ALL"} |`,
      );
    out.push("");
    out.push(
      `Load average (1 min) before the runs: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)}; at the end ${loadavg()[0]!.toFixed(2)}.`,
    );
    out.push(
      `Ledger check: ${ledger.ok ? "ok" : "MISMATCH"} (${answered200} credits answered 200, ${sent} sent, ${applied} applied).`,
    );
    out.push(`Target: ${target.met ? "MET   " : "MISSED"}  ${target.target}: ${target.value}`);
    if (errors > 0) out.push(`\n${errors} unexpected answers (status codes are in the JSON file).`);
    const valid = finishReport(out, {
      prefix: "webhook",
      meta,
      startedMs,
      sourcesAtStart,
      results: { ledger, target, table: row, deliveries, runs },
    });
    return errors === 0 && ledger.ok && delivered && valid;
  } finally {
    await hook.close();
  }
}

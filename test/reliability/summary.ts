// What each section leaves for the run's summary (one JSON file per section in the run's folder),
// and the summary the global teardown prints from them: checks per section, the figures, the
// traffic, how constant time is achieved, the seed and the run time.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Tally, Traffic } from "./harness";

export type Timing = { name: string; a: number; b: number; ratio: number; samples: number };

export type Figures = {
  distinctCredits?: { sent: number; seconds: number; perSecond: number };
  hostile?: {
    cases: number;
    refused: number;
    mixed: number;
    routes: number;
    status5xx: number;
    statuses: string;
  };
  streamedUploads?: string;
  pathological?: {
    cases: number;
    hostileMedianMs: number;
    besideMedianMs: number;
    quietMedianMs: number;
    hostileMaxMs: number;
  };
  authz?: { cases: number; routes: number; credentials: number };
  crash?: {
    sent: number;
    acked: number;
    foundAfter: number;
    unanswered: number;
    committedUnanswered: number;
    retried: number;
    appliedByRetry: number;
    alreadyThere: number;
  };
  timing?: Timing[];
  signIn?: {
    medians: Record<string, number>;
    ratios: Record<string, number>;
    samples: number;
    goodBcrypt12: number;
  };
  invariantRuns?: number;
  entriesChecked?: number;
  pairsChecked?: number;
};

export type SectionReport = {
  name: SectionName;
  title: string;
  tally: Tally;
  figures: Figures;
  traffic: Traffic;
  leaks: number;
};

/** The sections in the order the summary lists them. */
export const SECTIONS = {
  concurrency: "1. Concurrency",
  hostile: "2. Hostile input",
  authz: "3. Authorization",
  crash: "4. Crash safety",
  timing: "5. Timing",
  throttle: "6. Sign-in throttling",
  overload: "7. Rate limits and overload",
} as const;
export type SectionName = keyof typeof SECTIONS;

/** How constant time is achieved (printed in the summary; see the files named). */
export const CONSTANT_TIME = [
  "passwords (src/auth/password.ts, src/auth/pace.ts): PBKDF2-SHA256, 100,000 iterations, through WebCrypto; an unknown user is hashed against a dummy hash; digests are compared with crypto.subtle.timingSafeEqual; every refusal (unknown user, native hash, imported bcrypt or phpass hash) is answered 600 ms after the password check began, above the slowest check, with the same 400 Invalid Credential",
  "API keys (src/auth/api-keys.ts, src/wallet/key-principal.ts): only SHA-256(key) is stored; the presented key is hashed and looked up by that hash through the unique index api_keys_hash, so the secret never meets a byte-wise comparison; the username is checked after the lookup; every failure is the same 401 Invalid credentials",
  "access tokens (src/auth/tokens.ts): hono/jwt's verify checks the HS256 signature with crypto.subtle.verify (HMAC verification, constant time in the runtime); a bad, expired, foreign or tampered token is the same 401",
];

const reportFile = (runDir: string, name: string) => join(runDir, `${name}.json`);

export function writeReport(runDir: string, report: SectionReport) {
  writeFileSync(reportFile(runDir, report.name), JSON.stringify(report));
}

function readReports(runDir: string) {
  return Object.keys(SECTIONS)
    .map((name) => reportFile(runDir, name))
    .filter((file) => existsSync(file))
    .map((file): SectionReport => JSON.parse(readFileSync(file, "utf8")));
}

const histogram = (values: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(", ");
};

/** Prints the run's summary; `seed` is the fast-check seed, `startedAtMs` when the run began. */
export function printSummary(runDir: string, seed: number, startedAtMs: number) {
  const reports = readReports(runDir);
  // The webhooks file is no section: it answers through vitest alone.
  if (reports.length === 0) {
    console.log(
      "\n== Reliability summary ==\n  no section ran: webhooks.test.ts reports through vitest alone, above",
    );
    return;
  }
  const lines = ["", "== Reliability summary =="];
  const say = (text: string) => lines.push(`  ${text}`);
  let passed = 0;
  let failed = 0;
  for (const r of reports) {
    say(`${SECTIONS[r.name].padEnd(22)} ${r.tally.passed} passed, ${r.tally.failed} failed`);
    passed += r.tally.passed;
    failed += r.tally.failed;
  }
  const f: Figures = Object.assign({}, ...reports.map((r) => r.figures));
  if (f.distinctCredits)
    say(
      `distinct credits: ${f.distinctCredits.sent} in ${f.distinctCredits.seconds.toFixed(1)} s (${f.distinctCredits.perSecond}/s)`,
    );
  if (f.hostile)
    say(
      `hostile cases: ${f.hostile.cases} (${f.hostile.mixed} mixed, ${f.hostile.refused} must-refuse) over ${f.hostile.routes} routes, seed ${seed}; 5xx: ${f.hostile.status5xx}; statuses: ${f.hostile.statuses}`,
    );
  if (f.streamedUploads) say(`streamed uploads over 64 KiB: ${f.streamedUploads}`);
  if (f.authz)
    say(
      `authorization cases: ${f.authz.cases} over ${f.authz.routes} routes and ${f.authz.credentials} credential kinds`,
    );
  if (f.crash) {
    const c = f.crash;
    say(
      `crash: ${c.sent} credits sent, ${c.acked} acknowledged before SIGKILL, ${c.foundAfter} of them found after restart (each once), ${c.unanswered} unanswered → retried ${c.retried}: ${c.appliedByRetry} applied by the retry, ${c.alreadyThere} already applied (409)`,
    );
  }
  for (const t of f.timing ?? [])
    say(
      `timing ${t.name}: medians ${t.a.toFixed(2)} ms vs ${t.b.toFixed(2)} ms, ratio ${t.ratio.toFixed(3)} (${t.samples} samples each)`,
    );
  if (f.signIn) {
    const { medians, ratios, samples, goodBcrypt12 } = f.signIn;
    say(
      `sign-in refusals (median ms, ratio to an unknown user; ${samples} samples each): ${Object.keys(
        medians,
      )
        .map((k) => `${k} ${medians[k]!.toFixed(1)} (×${ratios[k]!.toFixed(3)})`)
        .join(", ")}`,
    );
    say(`a good imported bcrypt-12 sign-in (not padded): median ${goodBcrypt12.toFixed(1)} ms`);
  }
  const invariantRuns = reports.reduce((n, r) => n + (r.figures.invariantRuns ?? 0), 0);
  if (invariantRuns) {
    const entries = Math.max(...reports.map((r) => r.figures.entriesChecked ?? 0));
    const pairs = Math.max(...reports.map((r) => r.figures.pairsChecked ?? 0));
    say(
      `ledger invariants: checked ${invariantRuns} times, the most over ${entries} entries and ${pairs} (user, wallet) balances`,
    );
  }
  const sum = (pick: (r: SectionReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
  say(
    `responses: ${sum((r) => r.traffic.responses)}, 5xx: ${sum((r) => r.traffic.status5xx.length)}, secrets leaked: ${sum((r) => r.leaks)}, network errors: ${sum((r) => r.traffic.networkErrors)}`,
  );
  const proxy503 = sum((r) => r.traffic.devProxy503.length);
  if (proxy503)
    say(
      `wrangler dev proxy 503s (its report of a connection cut, not an answer of the worker): ${proxy503}`,
    );
  const retries = reports.flatMap((r) => r.traffic.transportRetries);
  if (retries.length)
    say(
      `local-stack connection failures retried once (hostile cases only; never an answer of the worker): ${retries.length} (${histogram(retries.map((t) => t.split(": ")[1] ?? t))})`,
    );
  say("constant time:");
  for (const line of CONSTANT_TIME) say(`  - ${line}`);
  say(`seed ${seed} (RELIABILITY_SEED=${seed} replays the fast-check cases)`);
  say(`run time ${((Date.now() - startedAtMs) / 1000).toFixed(1)} s`);
  lines.push("", `${passed} checks passed, ${failed} failed`);
  console.log(lines.join("\n"));
}

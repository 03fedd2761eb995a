// 5. Timing: sign-in refusals for an unknown user, a wrong password on this service's own hash and
// on hashes imported from WordPress (bcrypt cost 10 and 12, phpass) answer alike and in
// indistinguishable time; so do a key with the right username but a wrong secret and a completely
// unknown key, and a tampered token and a token signed with another secret. Samples are
// interleaved (random order in each round) and compared by their medians. Sign-ins stay under the
// throttle: each account takes at most PER_ACCOUNT failures and each request comes from its own
// CF-Connecting-IP.
import { randomBytes } from "node:crypto";
import { beforeAll, it } from "vitest";
import { type Ctx, createUser, mintToken, type TokenUser, tamperSignature, type User } from "./api";
import { type Answer, check, figures, median, note, send, timed } from "./harness";
import { createImportedUsers } from "./imported-users";
import { endOfSection, section } from "./section";
import type { Timing } from "./summary";

const LOW = 0.7;
const HIGH = 1.43;
// Refusals wait out src/auth/pace.ts's REFUSAL_FLOOR_MS after the password check began.
const FLOOR_MS = 600;
// Padded refusals differ only by the noise around one floor: a tighter band than the other checks,
// which a gap of a few tens of milliseconds falls outside.
const LOGIN_LOW = 0.95;
const LOGIN_HIGH = 1.05;
const LOGIN_SAMPLES = 15;
const LOGIN_WARMUP = 1;
const PER_ACCOUNT = 8; // failures per account, under its limit of 10
const SIGN_IN_KINDS = [
  "unknown user",
  "native PBKDF2",
  "imported bcrypt-10",
  "imported bcrypt-12",
  "imported phpass",
] as const;
type SignInKind = (typeof SIGN_IN_KINDS)[number];

type Compared = Omit<Timing, "name"> & {
  bodies: { a: Set<string>; b: Set<string> };
  statuses: { a: Set<number>; b: Set<number> };
};

/** Interleaved samples of two kinds of request; returns their medians and the answers seen. */
async function compare(
  a: () => Promise<Answer>,
  b: () => Promise<Answer>,
  { samples, warmup, deadline }: { samples: number; warmup: number; deadline: number },
): Promise<Compared> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const times = { a: [] as number[], b: [] as number[] };
  const bodies = { a: new Set<string>(), b: new Set<string>() };
  const statuses = { a: new Set<number>(), b: new Set<number>() };
  for (let i = 0; i < samples && Date.now() < deadline; i++) {
    const order = Math.random() < 0.5 ? (["a", "b"] as const) : (["b", "a"] as const);
    for (const which of order) {
      const { ms, res } = await timed(which === "a" ? a : b);
      times[which].push(ms);
      bodies[which].add(res.text);
      statuses[which].add(res.status);
    }
  }
  const ma = median(times.a);
  const mb = median(times.b);
  return {
    a: ma,
    b: mb,
    ratio: ma / mb,
    samples: Math.min(times.a.length, times.b.length),
    bodies,
    statuses,
  };
}

function report(name: string, labels: [string, string], result: Compared, expectStatus: number) {
  const { bodies: _, statuses: __, ...figure } = result;
  (figures.timing ??= []).push({ name, ...figure });
  note(
    `${name}: median ${labels[0]} ${result.a.toFixed(2)} ms, ${labels[1]} ${result.b.toFixed(2)} ms, ratio ${result.ratio.toFixed(3)} (${result.samples} samples each)`,
  );
  const sameAnswer =
    result.bodies.a.size === 1 &&
    result.bodies.b.size === 1 &&
    [...result.bodies.a][0] === [...result.bodies.b][0] &&
    [...result.statuses.a][0] === expectStatus;
  check(
    `${name}: ${labels[0]} and ${labels[1]} get the same answer (${expectStatus})`,
    sameAnswer,
    `${[...result.bodies.a].join(" | ")} vs ${[...result.bodies.b].join(" | ")}`,
  );
  check(
    `${name}: medians within ${LOW}–${HIGH} of each other (${result.a.toFixed(2)} ms vs ${result.b.toFixed(2)} ms, ratio ${result.ratio.toFixed(3)})`,
    result.samples >= 20 && result.ratio >= LOW && result.ratio <= HIGH,
    `ratio ${result.ratio.toFixed(3)} over ${result.samples} samples`,
  );
}

let address = 0;
/** A client address no other sign-in of this run uses (198.18.0.0/15, the benchmarking range). */
const freshAddress = () => `198.18.${Math.floor(address / 250) % 256}.${(address++ % 250) + 1}`;

const signIn = (ctx: Ctx, login: string, password: string) =>
  send(ctx.api, "POST", "/users/login", {
    json: { user_email: login, user_password: password },
    headers: { "CF-Connecting-IP": freshAddress() },
  });

const { ctx, deadlineFor } = section("timing");
const b64 = (text: string) => Buffer.from(text).toString("base64");
const randomKey = () => `wk_${randomBytes(32).toString("hex")}`;
/** This section's share of the run's time: 80 s, of which each comparison of two kinds of request may take an eighth. */
let deadline = 0;
let shareMs = 0;
beforeAll(() => {
  deadline = deadlineFor(80_000);
  shareMs = (deadline - Date.now()) / 8;
});
const share = () => Date.now() + shareMs;

it("API keys: the right username with a wrong key and an unknown username and key answer alike, in the same time", async () => {
  const keys = await compare(
    () =>
      send(ctx().api, "GET", "/wallets", {
        auth: `Key ${b64(`${ctx().admin.username}:${randomKey()}`)}`,
      }),
    () =>
      send(ctx().api, "GET", "/wallets", {
        auth: `Key ${b64(`nobody-${randomBytes(4).toString("hex")}:${randomKey()}`)}`,
      }),
    { samples: 60, warmup: 5, deadline: share() },
  );
  report(
    "API key",
    ["the right username with a wrong key", "an unknown username and key"],
    keys,
    401,
  );
});

it("access tokens: a tampered signature and another secret's signature answer alike, in the same time", async () => {
  const admin: TokenUser = {
    id: ctx().admin.id,
    username: ctx().admin.username,
    role: "administrator",
  };
  const tokens = await compare(
    () =>
      send(ctx().api, "GET", "/wallets", {
        auth: `Bearer ${tamperSignature(mintToken({ secret: ctx().jwtSecret, user: admin }))}`,
      }),
    () =>
      send(ctx().api, "GET", "/wallets", {
        auth: `Bearer ${mintToken({ secret: randomBytes(32).toString("hex"), user: admin })}`,
      }),
    { samples: 60, warmup: 5, deadline: share() },
  );
  report("access token", ["a tampered signature", "another secret's signature"], tokens, 401);
});

/**
 * Sign-in refusals of five kinds, interleaved: an unknown user against a wrong password for a user
 * with this service's hash and for users imported with bcrypt-10, bcrypt-12 and phpass hashes. Then
 * three good bcrypt-12 sign-ins, which are not padded: answered before the refusals, they show the
 * floor is above the slowest check.
 */
it("sign-in refusals of every kind answer alike, at the floor, above the slowest check", async () => {
  const rounds = LOGIN_WARMUP + LOGIN_SAMPLES;
  const accounts = Math.ceil(rounds / PER_ACCOUNT);
  const natives: User[] = [];
  for (let i = 0; i < accounts; i++) natives.push(await createUser(ctx(), "tn"));
  const imported = await createImportedUsers(ctx(), [
    ...(["bcrypt-10", "bcrypt-12", "phpass"] as const).flatMap((kind) =>
      Array<typeof kind>(accounts).fill(kind),
    ),
    ...Array<"bcrypt-12">(3).fill("bcrypt-12"),
  ]);
  // An unknown login is tried as often as a known one (a new login's first try makes the throttle's
  // objects for it, for a known or an unknown login alike): like is timed against like.
  const nobodies = Array.from({ length: accounts }, () => ({
    email: `nobody-${randomBytes(4).toString("hex")}@example.test`,
  }));
  const accountsOf: Record<SignInKind, { email: string }[]> = {
    "unknown user": nobodies,
    "native PBKDF2": natives,
    "imported bcrypt-10": imported.filter((u) => u.kind === "bcrypt-10"),
    "imported bcrypt-12": imported.filter((u) => u.kind === "bcrypt-12").slice(0, accounts),
    "imported phpass": imported.filter((u) => u.kind === "phpass"),
  };
  const wrong = () => `wrong-${randomBytes(6).toString("hex")}`;
  const times = Object.fromEntries(SIGN_IN_KINDS.map((k) => [k, [] as number[]])) as Record<
    SignInKind,
    number[]
  >;
  const answers = new Set<string>();
  const statuses = new Set<number>();
  for (let round = 0; round < rounds && Date.now() < deadline; round++) {
    const order = [...SIGN_IN_KINDS].sort(() => Math.random() - 0.5);
    for (const kind of order) {
      const login = accountsOf[kind][Math.floor(round / PER_ACCOUNT)]!.email;
      const { ms, res } = await timed(() => signIn(ctx(), login, wrong()));
      answers.add(res.text);
      statuses.add(res.status);
      if (round >= LOGIN_WARMUP) times[kind].push(ms);
    }
  }
  const medians = Object.fromEntries(SIGN_IN_KINDS.map((k) => [k, median(times[k])])) as Record<
    SignInKind,
    number
  >;
  const samples = Math.min(...SIGN_IN_KINDS.map((k) => times[k].length));
  const base = medians["unknown user"];
  const ratios = Object.fromEntries(SIGN_IN_KINDS.map((k) => [k, medians[k] / base])) as Record<
    SignInKind,
    number
  >;
  for (const kind of SIGN_IN_KINDS.slice(1))
    (figures.timing ??= []).push({
      name: `login ${kind} vs unknown user`,
      a: medians[kind],
      b: base,
      ratio: ratios[kind],
      samples,
    });
  note(
    `sign-in refusals, median of ${samples} each: ${SIGN_IN_KINDS.map((k) => `${k} ${medians[k].toFixed(1)} ms (×${ratios[k].toFixed(3)})`).join(", ")}`,
  );

  check(
    `login: every refusal (${SIGN_IN_KINDS.join(", ")}) gets the same answer (400 Invalid Credential)`,
    answers.size === 1 &&
      statuses.size === 1 &&
      statuses.has(400) &&
      [...answers][0]!.includes("Invalid Credential"),
    [...answers].join(" | "),
  );
  check(
    `login: each refusal kind's median within ${LOGIN_LOW}–${LOGIN_HIGH} of an unknown user's (${SIGN_IN_KINDS.slice(
      1,
    )
      .map((k) => `${k} ×${ratios[k].toFixed(3)}`)
      .join(", ")})`,
    samples >= 10 && SIGN_IN_KINDS.every((k) => ratios[k] >= LOGIN_LOW && ratios[k] <= LOGIN_HIGH),
    `${samples} samples each`,
  );
  check(
    `login: every refusal kind's median is at least the ${FLOOR_MS} ms floor`,
    SIGN_IN_KINDS.every((k) => medians[k] >= FLOOR_MS),
    SIGN_IN_KINDS.map((k) => `${k} ${medians[k].toFixed(1)} ms`).join(", "),
  );

  const good: number[] = [];
  for (const user of imported.slice(-3)) {
    const { ms, res } = await timed(() => signIn(ctx(), user.email, user.password));
    if (res.status === 200) good.push(ms);
  }
  const goodBcrypt12 = good.length ? median(good) : Number.NaN;
  figures.signIn = { medians, ratios, samples, goodBcrypt12 };
  note(
    `a good sign-in with an imported bcrypt-12 hash (not padded; verifies, re-hashes with PBKDF2, stores): median ${goodBcrypt12.toFixed(1)} ms of 3`,
  );
  // Both times are taken at the client, so each holds the request's own cost beside the check
  // (routing, the throttle's calls, D1, the dev server's proxy): a good sign-in is held to the
  // refusals, whose floor that cost follows, not to the bare floor. Its re-hash and write keep the
  // comparison on the safe side.
  const fastestRefusal = Math.min(...SIGN_IN_KINDS.map((k) => medians[k]));
  check(
    `login: a good bcrypt-12 sign-in, the slowest check, answers before the refusals that wait out the ${FLOOR_MS} ms floor (median ${goodBcrypt12.toFixed(1)} ms, the fastest refusals' ${fastestRefusal.toFixed(1)} ms)`,
    good.length === 3 && goodBcrypt12 < fastestRefusal,
    `${good.length} of 3 signed in`,
  );
});

endOfSection();

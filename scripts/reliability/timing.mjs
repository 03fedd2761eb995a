// 5. Timing: a wrong password for an existing user and an unknown user answer alike and in
// indistinguishable time; so do a key with the right username but a wrong secret and a completely
// unknown key, and a tampered token and a token signed with another secret. Samples are
// interleaved (random order in each pair) and compared by their medians.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { mintToken, tamperSignature } from "./api.mjs";
import { check, figures, median, note, send, startSection } from "./harness.mjs";

const LOW = 0.7;
const HIGH = 1.43;

/** How constant time is achieved (printed in the summary; see the files named). */
export const CONSTANT_TIME = [
  "passwords (src/auth/password.ts): PBKDF2-SHA256, 100,000 iterations, through WebCrypto; an unknown user is hashed against a dummy hash, so both paths run the full derivation; digests are compared with crypto.subtle.timingSafeEqual; both answers are the same 400 Invalid Credential",
  "API keys (src/auth/api-keys.ts, src/http/auth.ts): only SHA-256(key) is stored; the presented key is hashed and looked up by that hash through the unique index api_keys_hash, so the secret never meets a byte-wise comparison; the username is checked after the lookup; every failure is the same 401 Invalid credentials",
  "access tokens (src/auth/tokens.ts): hono/jwt's verify checks the HS256 signature with crypto.subtle.verify (HMAC verification, constant time in the runtime); a bad, expired, foreign or tampered token is the same 401",
];

async function timed(fn) {
  const t0 = performance.now();
  const res = await fn();
  return { ms: performance.now() - t0, res };
}

/** Interleaved samples of two kinds of request; returns their medians and the answers seen. */
async function compare(a, b, { samples, warmup, deadline }) {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const times = { a: [], b: [] };
  const bodies = { a: new Set(), b: new Set() };
  const statuses = { a: new Set(), b: new Set() };
  for (let i = 0; i < samples && Date.now() < deadline; i++) {
    const order = Math.random() < 0.5 ? ["a", "b"] : ["b", "a"];
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

function report(name, labels, result, expectStatus) {
  figures.timing ??= [];
  figures.timing.push({ name, ...result });
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

export async function runTiming(ctx, { deadline }) {
  startSection("timing", "5. Timing");
  const share = (deadline - Date.now()) / 3;
  const wrong = () => `wrong-${randomBytes(6).toString("hex")}`;

  const login = await compare(
    () =>
      send(ctx.api, "POST", "/users/login", {
        json: { user_email: ctx.admin.email, user_password: wrong() },
      }),
    () =>
      send(ctx.api, "POST", "/users/login", {
        json: {
          user_email: `nobody-${randomBytes(4).toString("hex")}@example.test`,
          user_password: wrong(),
        },
      }),
    { samples: 30, warmup: 3, deadline: Date.now() + share },
  );
  report("login", ["wrong password for an existing user", "unknown user"], login, 400);

  const b64 = (text) => Buffer.from(text).toString("base64");
  const randomKey = () => `wk_${randomBytes(32).toString("hex")}`;
  const keys = await compare(
    () =>
      send(ctx.api, "GET", "/wallets", {
        auth: `Key ${b64(`${ctx.admin.username}:${randomKey()}`)}`,
      }),
    () =>
      send(ctx.api, "GET", "/wallets", {
        auth: `Key ${b64(`nobody-${randomBytes(4).toString("hex")}:${randomKey()}`)}`,
      }),
    { samples: 60, warmup: 5, deadline: Date.now() + share },
  );
  report(
    "API key",
    ["the right username with a wrong key", "an unknown username and key"],
    keys,
    401,
  );

  const admin = { id: ctx.admin.id, username: ctx.admin.username, role: "administrator" };
  const tokens = await compare(
    () =>
      send(ctx.api, "GET", "/wallets", {
        auth: `Bearer ${tamperSignature(mintToken({ secret: ctx.jwtSecret, user: admin }))}`,
      }),
    () =>
      send(ctx.api, "GET", "/wallets", {
        auth: `Bearer ${mintToken({ secret: randomBytes(32).toString("hex"), user: admin })}`,
      }),
    { samples: 60, warmup: 5, deadline: Date.now() + share },
  );
  report("access token", ["a tampered signature", "another secret's signature"], tokens, 401);
}

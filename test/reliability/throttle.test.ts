// 6. Sign-in throttling over HTTP (src/throttle/): 10 failures from one address lock that
// (account, address) pair (the right password then answers 429 with Retry-After there, and signs in
// from another address), other accounts sign in from the same address, a parallel burst has at most
// 10 passwords checked, a stranger's 50 failures from 5 addresses do not lock a known address out
// (the account's ceiling locks unknown ones), an administrator's unlock lets the user in at once,
// and 100 failures from one address lock that address. Every request names its client with
// CF-Connecting-IP (wrangler dev keeps a client's value; Cloudflare sets it in production), so this
// section's addresses are its own. So is its server: the users it makes would move the table counts
// of the authorization checks, which run beside it on the run's server (vitest.config.ts).
import { it } from "vitest";
import { type Ctx, createUser } from "./api";
import { type Answer, at, check, note, send, unique } from "./harness";
import { endOfSection, section } from "./section";

const LOCK_TEXT = "Too many failed sign-in attempts";

const signIn = (ctx: Ctx, login: string, password: string, ip: string) =>
  send(ctx.api, "POST", "/users/login", {
    json: { user_email: login, user_password: password },
    headers: { "CF-Connecting-IP": ip },
  });

/**
 * The least Retry-After a lock of `lockS` seconds begun after `sinceMs` may answer now: what the
 * run took since is counted, not assumed, so a slow machine makes no lock look short.
 */
const leftOf = (lockS: number, sinceMs: number) => lockS - Math.ceil((Date.now() - sinceMs) / 1000);

/** Whether `res` is the throttle's 429 in envelope B, with a Retry-After within `[min, max]` seconds. */
function isLocked(res: Answer, min: number, max: number) {
  const retry = Number(res.headers.get("retry-after"));
  const b = res.json;
  return (
    res.status === 429 &&
    retry >= min &&
    retry <= max &&
    at(b, "status_code") === 429 &&
    at(b, "status") === "failed" &&
    at(b, "message") === LOCK_TEXT &&
    JSON.stringify(at(b, "data")) === "[]" &&
    JSON.stringify(at(b, "error")) ===
      JSON.stringify([`${LOCK_TEXT}: try again in ${retry} seconds`])
  );
}

const { ctx } = section("throttle", { ownServer: true });

it("10 failures lock an account from that address (the right password then answers 429 there); other addresses and accounts sign in; a burst checks at most 10", async () => {
  const [locked, other, burst] = await Promise.all([
    createUser(ctx(), "thl"),
    createUser(ctx(), "tho"),
    createUser(ctx(), "thb"),
  ]);
  const ip = "198.51.100.61";
  const failures: number[] = [];
  const failingFromMs = Date.now();
  for (let i = 0; i < 10; i++)
    failures.push((await signIn(ctx(), locked.email, `wrong-${i}`, ip)).status);
  check(
    "10 wrong passwords for one account each answer 400",
    failures.every((s) => s === 400),
    failures.join(", "),
  );
  const eleventh = await signIn(ctx(), locked.email, locked.password, ip);
  check(
    "the 11th attempt, with the right password, answers 429 with Retry-After (about 60 s) in envelope B",
    isLocked(eleventh, leftOf(60, failingFromMs), 60),
    `${eleventh.status} Retry-After ${eleventh.headers.get("retry-after")} ${eleventh.text}`,
  );
  const elsewhere = await signIn(ctx(), locked.username, locked.password, "198.51.100.62");
  check(
    "the same account signs in from another address meanwhile, by username (200): a stranger's failures lock only their own address",
    elsewhere.status === 200,
    `${elsewhere.status} ${elsewhere.text}`,
  );
  const otherAccount = await signIn(ctx(), other.email, other.password, ip);
  check(
    "another account signs in from the same address meanwhile (200)",
    otherAccount.status === 200,
    `${otherAccount.status} ${otherAccount.text}`,
  );

  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => signIn(ctx(), burst.email, `burst-${i}`, "198.51.100.63")),
  );
  const checked = answers.filter((r) => r.status !== 429);
  note(
    `20 parallel wrong passwords for one account: ${checked.length} checked (400), ${answers.length - checked.length} refused (429)`,
  );
  check(
    "of 20 parallel wrong passwords for one account at most 10 are checked; the rest answer 429",
    checked.length <= 10 &&
      checked.every((r) => r.status === 400) &&
      answers.every((r) => r.status === 400 || isLocked(r, 1, 60)),
    answers.map((r) => r.status).join(","),
  );
});

it("a stranger's 50 failures from 5 addresses do not lock a known address out", async () => {
  const user = await createUser(ctx(), "thk");
  const home = "198.51.100.70";
  const first = await signIn(ctx(), user.email, user.password, home);
  const strangers = [
    "198.51.100.71",
    "198.51.100.72",
    "198.51.100.73",
    "198.51.100.74",
    "198.51.100.75",
  ];
  const failingFromMs = Date.now();
  const failures = (
    await Promise.all(
      strangers.map(async (ip) => {
        const answers: Answer[] = [];
        for (let i = 0; i < 10; i++)
          answers.push(await signIn(ctx(), user.email, `guess-${i}`, ip));
        return answers;
      }),
    )
  ).flat();
  const fromHome = await signIn(ctx(), user.email, user.password, home);
  const fromNew = await signIn(ctx(), user.email, user.password, "198.51.100.76");
  note(
    `50 failures from 5 addresses: ${failures.filter((r) => r.status === 400).length} answered 400; then the known address ${fromHome.status}, a new one ${fromNew.status} (Retry-After ${fromNew.headers.get("retry-after")})`,
  );
  check(
    "after a sign-in from one address, 50 wrong passwords from 5 other addresses (10 each) all answer 400",
    first.status === 200 && failures.length === 50 && failures.every((r) => r.status === 400),
    `first ${first.status}; ${failures.map((r) => r.status).join(",")}`,
  );
  check(
    "the known address then signs in with the right password (200)",
    fromHome.status === 200,
    `${fromHome.status} ${fromHome.text}`,
  );
  check(
    "an address the account never signed in from gets the ceiling's 429 with Retry-After (about 60 s) in envelope B",
    isLocked(fromNew, leftOf(60, failingFromMs), 60),
    `${fromNew.status} Retry-After ${fromNew.headers.get("retry-after")} ${fromNew.text}`,
  );
});

it("an administrator unlocks a locked account (nobody else may); the right password then signs in", async () => {
  const [unlocked, other] = await Promise.all([createUser(ctx(), "thu"), createUser(ctx(), "tho")]);
  const failingFromMs = Date.now();
  // Locked by 10 failures at once (the first test locks one by 10 in turn): each waits out the
  // refusal floor, so side by side they take one floor, not ten.
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      signIn(ctx(), unlocked.email, `wrong-${i}`, "198.51.100.64"),
    ),
  );
  const before = await signIn(ctx(), unlocked.email, unlocked.password, "198.51.100.64");
  const forbidden = await send(ctx().api, "POST", `/users/${unlocked.id}/unlock`, {
    auth: other.bearer,
  });
  const anonymous = await send(ctx().api, "POST", `/users/${unlocked.id}/unlock`);
  check(
    "a subscriber may not unlock (403), nor anyone without credentials (401)",
    forbidden.status === 403 && anonymous.status === 401,
    `${forbidden.status} ${anonymous.status}`,
  );
  const unlock = await send(ctx().api, "POST", `/users/${unlocked.id}/unlock`, {
    auth: ctx().adminAuth,
  });
  const after = await signIn(ctx(), unlocked.email, unlocked.password, "198.51.100.64");
  check(
    "POST /users/{id}/unlock by an administrator answers 200 and the right password signs in at once",
    isLocked(before, leftOf(60, failingFromMs), 60) &&
      unlock.status === 200 &&
      at(unlock.json, "data", "was_locked") === true &&
      after.status === 200,
    `before ${before.status}, unlock ${unlock.status} ${unlock.text}, after ${after.status}`,
  );
  const missing = await send(ctx().api, "POST", "/users/2000000000/unlock", {
    auth: ctx().adminAuth,
  });
  check(
    "unlocking a user id that does not exist answers 404 in envelope B",
    missing.status === 404 && at(missing.json, "status") === "failed",
    missing.text,
  );
});

// Spread over unknown logins, so that none reaches its account's limit.
it("100 failures from one address lock that address, even for a fresh account with its right password", async () => {
  const spray = "198.51.100.65";
  const logins = Array.from({ length: 20 }, () => `${unique("spray")}@example.test`);
  const sprayed: Answer[] = [];
  const failingFromMs = Date.now();
  for (let round = 0; round < 5; round++)
    sprayed.push(
      ...(await Promise.all(logins.map((login) => signIn(ctx(), login, `spray-${round}`, spray)))),
    );
  const fresh = await createUser(ctx(), "thf");
  const fromSpray = await signIn(ctx(), fresh.email, fresh.password, spray);
  const fromElsewhere = await signIn(ctx(), fresh.email, fresh.password, "198.51.100.66");
  check(
    "after 100 failures from one address, that address gets 429 (Retry-After about 900 s) even for a fresh account with its right password; another address signs in",
    sprayed.every((r) => r.status === 400) &&
      isLocked(fromSpray, leftOf(900, failingFromMs), 900) &&
      fromElsewhere.status === 200,
    `${sprayed.filter((r) => r.status !== 400).length} of 100 not 400; spray ${fromSpray.status} ${fromSpray.headers.get("retry-after")}; elsewhere ${fromElsewhere.status}`,
  );
});

endOfSection();

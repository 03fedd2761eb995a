// 1. Concurrency over HTTP: duplicate request ids, many distinct credits, racing debits and
// transfers against a small balance, racing captures of one hold, holds racing debits, racing user
// creations. The last tests read the same facts from
// D1 itself, for the users and names the earlier tests of this file made.
import { beforeAll, it } from "vitest";
import { runLoad } from "../../scripts/bench/load";
import {
  allTransactions,
  balance,
  connect,
  createUser,
  createWallet,
  credit,
  type User,
} from "./api";
import {
  at,
  check,
  DEV_PROXY_503,
  errorCode,
  figures,
  histogram,
  minorAsNumber,
  minorText,
  note,
  pool,
  send,
  unique,
} from "./harness";
import { checkLedgerInvariants, d1 } from "./ledger";
import { endOfSection, section, startOnCopy } from "./section";

const DISTINCT_CREDITS = 2000;
const REPLAY_S = 30;
const CONNECTIONS = 32;
const INSUFFICIENT = {
  status_code: 400,
  status: false,
  message: "Insufficient Balance",
  error: { amount: "Insufficient Balance" },
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Minor units of an amount as the API echoes it ("12.3", "12.30", "12"). */
const toMinor = (text: unknown) => {
  const [whole, frac = ""] = String(text).split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0").slice(0, 2));
};

const { ctx, deadlineFor, run } = section("concurrency");
const post = (path: string, json: unknown) =>
  send(ctx().api, "POST", path, { auth: ctx().adminAuth, json });

let wallet: string;
let dupUser: User;
let manyUser: User;
let debitUser: User;
let fromUser: User;
let toUser: User;
let keyUser: User;
let captureUser: User;
let holdRaceUser: User;
let expected = 0;
let raced = { name: "", mail: "" };
/** The replay's server of its own, started while the tests before it run (a start takes seconds). */
let replayServer: ReturnType<typeof startOnCopy>;
beforeAll(async () => {
  replayServer = startOnCopy(run, { wranglerDev: false });
  replayServer.catch(() => {}); // its test awaits it, and fails on it
  wallet = await createWallet(ctx(), { prefix: "cw" });
  [dupUser, manyUser, debitUser, fromUser, toUser, keyUser, captureUser, holdRaceUser] =
    await Promise.all([
      createUser(ctx(), "cdup"),
      createUser(ctx(), "cmany"),
      createUser(ctx(), "cdeb"),
      createUser(ctx(), "cfrom"),
      createUser(ctx(), "cto"),
      createUser(ctx(), "ckey"),
      createUser(ctx(), "ccap"),
      createUser(ctx(), "chold"),
    ]);
});

it("100 parallel credits with one request_id (a quarter in upper case) make one entry", async () => {
  const rid = unique("dup-");
  const before = await balance(ctx(), dupUser.id, wallet);
  const dup = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      post("/credits", {
        user_id: dupUser.id,
        wallet_id: wallet,
        amount: "12.34",
        request_id: i % 4 === 3 ? rid.toUpperCase() : rid,
      }),
    ),
  );
  // wrangler dev's proxy may cut a request under this load with its own 503 (never an answer of
  // the worker, and the worker may have written it): such a request is left out of the counts, and
  // the entry and the balance below are what must hold exactly.
  const cut = dup.filter((r) => r.status === 503 && r.text.startsWith(DEV_PROXY_503));
  const dupOk = dup.filter((r) => r.status === 200);
  const winner =
    at(dupOk[0]?.json, "data", "transaction_id") ??
    Number(at(dup.find((r) => r.status === 409)?.json, "error", "txn_id"));
  const dup409 = dup.filter(
    (r) =>
      r.status === 409 &&
      same(r.json, {
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: { txn_id: String(winner), exist: "Transaction already executed" },
      }),
  );
  check(
    "100 parallel credits with one request_id: exactly one 200 (none if the local stack cut it)",
    dupOk.length === 1 || (dupOk.length === 0 && cut.length > 0),
    histogram(dup.map((r) => r.status)),
  );
  check(
    '... and every other answer of the worker a 409 "Transaction already exists" naming that one entry',
    dup409.length === 100 - dupOk.length - cut.length,
    histogram(dup.map((r) => r.status)),
  );
  const afterDup = await balance(ctx(), dupUser.id, wallet);
  check(
    "... one balance change (+12.34)",
    afterDup === minorAsNumber(toMinor(before ?? 0) + 1234),
    `before ${before}, after ${afterDup}`,
  );
  const dupList = await allTransactions(ctx(), dupUser.id);
  check(
    "... one entry in GET /transactions",
    dupList.total === 1 && dupList.rows.length === 1,
    `X-WP-Total ${dupList.total}, rows ${dupList.rows.length}`,
  );
});

// Group commit under sustained load: its first version woke a waiting credit from the request that
// wrote the batch, and about one in a few thousand then ran its D1 write in that other request's
// context and answered 500 (src/ledger/group-commit.ts). It showed only at the rate autocannon
// reaches without wrangler's DevTools inspector, after 15 s or so of replays: hence a server of its
// own, started as the bench starts it (the deploy bundle under Miniflare alone), and 30 s of load.
it(`${REPLAY_S} s of one request_id replayed over ${CONNECTIONS} connections: every one 409`, async () => {
  const server = await replayServer;
  try {
    const own = await connect(server, run.config);
    const [replayWallet, user] = await Promise.all([
      createWallet(own, { prefix: "cr" }),
      createUser(own, "crep"),
    ]);
    const body = {
      user_id: user.id,
      wallet_id: replayWallet,
      amount: "0.01",
      request_id: unique("replay-"),
    };
    const first = await send(own.api, "POST", "/credits", { auth: own.adminAuth, json: body });
    const request = {
      method: "POST" as const,
      path: `${new URL(server.api).pathname}/credits`,
      headers: { Authorization: own.adminAuth, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    };
    const seconds = Math.max(5, Math.floor((deadlineFor(REPLAY_S * 1000) - Date.now()) / 1000));
    const load = await runLoad({
      base: server.base,
      request,
      expectStatus: 409,
      duration: seconds,
      connections: CONNECTIONS,
    });
    note(`${load.responses} replays in ${seconds} s (${Math.round(load.reqPerSec)}/s)`);
    const after = await balance(own, user.id, replayWallet);
    check(
      `${seconds} s of one request_id replayed over ${CONNECTIONS} connections: every one 409, the balance credited once`,
      first.status === 200 && load.responses > 0 && load.errors === 0 && after === 0.01,
      `first ${first.status}; replays ${JSON.stringify(load.statusCodes)}, connection errors ${load.connectionErrors}; balance ${after}`,
    );
  } finally {
    await server.stop({ keepState: false });
  }
});

it(`${DISTINCT_CREDITS} distinct credits over ${CONNECTIONS} connections all land, exactly`, async () => {
  // minor units, 0.01 … 999.99
  const amounts = Array.from(
    { length: DISTINCT_CREDITS },
    (_, i) => 1 + ((i * 7919 + 13) % 99_999),
  );
  expected = amounts.reduce((a, b) => a + b, 0);
  const tag = unique("");
  const started = Date.now();
  const answers = await pool(amounts, CONNECTIONS, async (minor, i) => {
    // Every fourth amount as a JSON number, the rest as decimal strings.
    const amount = i % 4 === 0 ? minorAsNumber(minor) : minorText(minor);
    try {
      const r = await post("/credits", {
        user_id: manyUser.id,
        wallet_id: wallet,
        amount,
        request_id: `many-${i}-${tag}`,
      });
      return { status: r.status, id: at(r.json, "data", "transaction_id") };
    } catch (error) {
      return { status: `network: ${errorCode(error)}`, id: undefined };
    }
  });
  const seconds = (Date.now() - started) / 1000;
  const answered = answers.filter((a) => a !== undefined);
  figures.distinctCredits = {
    sent: answered.length,
    seconds,
    perSecond: Math.round(answered.length / seconds),
  };
  note(
    `${answered.length} credits in ${seconds.toFixed(1)} s over ${CONNECTIONS} loops (${Math.round(answered.length / seconds)}/s)`,
  );
  check(
    `${DISTINCT_CREDITS} distinct credits over ${CONNECTIONS} connections: all answered 200`,
    answered.length === DISTINCT_CREDITS && answered.every((a) => a.status === 200),
    histogram(answers.map((a) => a?.status ?? "not sent")),
  );
  const manyBalance = await balance(ctx(), manyUser.id, wallet);
  check(
    `... balance equals the exact sum (${minorText(expected)})`,
    manyBalance === minorAsNumber(expected),
    `balance ${manyBalance}`,
  );
  const list = await allTransactions(ctx(), manyUser.id);
  const listedIds = new Set(list.rows.map((r) => r.ID));
  const answeredIds = new Set(answered.map((a) => a.id));
  const listedSum = list.rows.reduce((s, r) => s + toMinor(r.amount), 0);
  check(
    `... GET /transactions (per_page=100, ${Math.ceil(list.rows.length / 100)} pages) holds exactly ${DISTINCT_CREDITS} entries`,
    list.rows.length === DISTINCT_CREDITS &&
      list.total === DISTINCT_CREDITS &&
      listedIds.size === DISTINCT_CREDITS,
    `rows ${list.rows.length}, X-WP-Total ${list.total}, distinct ids ${listedIds.size}`,
  );
  check(
    "... the listed entries are the ones the 200s named, and their amounts add up to the balance",
    [...listedIds].every((id) => answeredIds.has(id)) && listedSum === expected,
    `listed sum ${listedSum}, expected ${expected}`,
  );
});

it("40 parallel debits of 0.75 against 10.00: exactly 13 succeed, never an overdraft", async () => {
  await credit(ctx(), debitUser.id, wallet, "10.00");
  const debits = await Promise.all(
    Array.from({ length: 40 }, () =>
      post("/debits", {
        user_id: debitUser.id,
        wallet_id: wallet,
        amount: "0.75",
        request_id: unique("deb-"),
      }),
    ),
  );
  const debitOk = debits.filter((r) => r.status === 200).length;
  const debitRefused = debits.filter((r) => r.status === 400 && same(r.json, INSUFFICIENT)).length;
  check(
    "40 parallel debits of 0.75 against 10.00: exactly 13 succeed",
    debitOk === 13,
    histogram(debits.map((r) => r.status)),
  );
  check(
    '... the other 27 answer 400 "Insufficient Balance"',
    debitRefused === 27,
    histogram(debits.map((r) => `${r.status} ${at(r.json, "message")}`)),
  );
  const debitBalance = await balance(ctx(), debitUser.id, wallet);
  check("... final balance exactly 0.25", debitBalance === 0.25, `balance ${debitBalance}`);
});

it("12 parallel transfers of 0.30 from 1.00: both halves or nothing, never an overdraft", async () => {
  await credit(ctx(), fromUser.id, wallet, "1.00");
  const transfers = await Promise.all(
    Array.from({ length: 12 }, () =>
      post("/transfers", {
        from_user_id: fromUser.id,
        to_user_id: toUser.id,
        wallet_id: wallet,
        amount: "0.30",
        request_id: unique("tr-"),
      }),
    ),
  );
  const transferOk = transfers.filter((r) => r.status === 200).length;
  const transferRefused = transfers.filter(
    (r) => r.status === 400 && same(r.json, INSUFFICIENT),
  ).length;
  const [fromBalance, toBalance] = await Promise.all([
    balance(ctx(), fromUser.id, wallet),
    balance(ctx(), toUser.id, wallet),
  ]);
  check(
    "12 parallel transfers of 0.30 from 1.00: exactly 3 succeed, 9 × Insufficient Balance, balances 0.10 and 0.90",
    transferOk === 3 && transferRefused === 9 && fromBalance === 0.1 && toBalance === 0.9,
    `${histogram(transfers.map((r) => r.status))}; from ${fromBalance}, to ${toBalance}`,
  );
});

// Holds (docs/ledger.md#holds): a capture marks its hold and writes its DEBIT in one batch, guarded
// so that one batch of any number can; holds and debits both count against the available balance,
// judged by the database inside each batch.
it("50 racing captures of one hold apply once", async () => {
  await credit(ctx(), captureUser.id, wallet, "10.00");
  const placed = await post("/holds", {
    user_id: captureUser.id,
    wallet_id: wallet,
    amount: "4.00",
    request_id: unique("hold-"),
  });
  const holdId = Number(at(placed.json, "data", "hold_id"));
  const captures = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      post(`/holds/${holdId}/capture`, i % 2 ? { amount: "4.00" } : {}),
    ),
  );
  const cut = captures.filter((r) => r.status === 503 && r.text.startsWith(DEV_PROXY_503));
  const ok = captures.filter((r) => r.status === 200);
  const resolved = captures.filter(
    (r) =>
      r.status === 409 &&
      same(r.json, {
        status_code: 409,
        status: false,
        message: "Hold already resolved",
        error: { id: `Hold ${holdId} is captured`, status: "captured" },
      }),
  );
  check(
    "50 racing captures of one hold: the hold placed, one 200 (none if the local stack cut it), every other answer 409 captured",
    placed.status === 200 &&
      (ok.length === 1 || (ok.length === 0 && cut.length > 0)) &&
      resolved.length === 50 - ok.length - cut.length,
    `${placed.status}; ${histogram(captures.map((r) => r.status))}`,
  );
  const [entries = {}] = await d1(
    ctx(),
    `SELECT count(*) AS n, coalesce(sum(amount_minor), 0) AS minor,
       (SELECT status FROM holds WHERE id = ${holdId}) AS status FROM transactions WHERE hold_id = ${holdId}`,
  );
  const after = await balance(ctx(), captureUser.id, wallet);
  check(
    "... D1: one DEBIT of 4.00 names the hold, which is captured; the balance is 6.00",
    entries.n === 1 && entries.minor === 400 && entries.status === "captured" && after === 6,
    `${JSON.stringify(entries)}; balance ${after}`,
  );
});

it("holds racing debits never overdraw: 20 holds and 20 debits of 0.75 against 10.00", async () => {
  await credit(ctx(), holdRaceUser.id, wallet, "10.00");
  const body = { user_id: holdRaceUser.id, wallet_id: wallet, amount: "0.75" };
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      post(i % 2 ? "/holds" : "/debits", { ...body, request_id: unique("hr-") }),
    ),
  );
  const ok = answers.filter((r) => r.status === 200).length;
  const refused = answers.filter((r) => r.status === 400 && same(r.json, INSUFFICIENT)).length;
  const read = await send(ctx().api, "GET", `/balances?user_id=${holdRaceUser.id}`, {
    auth: ctx().adminAuth,
  });
  const row = ((at(read.json, "data") ?? []) as Record<string, unknown>[]).find(
    (r) => r.wallet_id === wallet,
  );
  check(
    "holds racing debits: exactly 13 of the 40 succeed (13 × 0.75 ≤ 10.00), 27 × Insufficient Balance, available exactly 0.25",
    ok === 13 && refused === 27 && row?.available === 0.25,
    `${histogram(answers.map((r) => `${r.status} ${at(r.json, "message")}`))}; ${JSON.stringify(row)}`,
  );
  const [sums = {}] = await d1(
    ctx(),
    `SELECT (SELECT balance_minor FROM balances WHERE user_id = ${holdRaceUser.id} AND wallet_id = '${wallet}') AS balance,
       (SELECT coalesce(sum(amount_minor), 0) FROM holds WHERE user_id = ${holdRaceUser.id} AND status = 'held') AS held`,
  );
  check(
    "... D1: balance − held = 0.25, never below zero",
    Number(sums.balance) - Number(sums.held) === 25,
    JSON.stringify(sums),
  );
});

/** 20 parallel creations of users sharing one username or one e-mail (its case varying). */
async function raceUsers(field: "username" | "user_email", shared: string) {
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => {
      const mine = unique(field === "username" ? "rn" : "rm").slice(0, 30);
      const value = i % 2 ? shared.toLowerCase() : shared;
      return post("/users", {
        username: field === "username" ? value : mine,
        user_email: field === "user_email" ? value : `${mine}@example.test`,
        user_password: "race-password",
      });
    }),
  );
  const taken = answers.filter(
    (r) =>
      r.status === 400 &&
      JSON.stringify(at(r.json, "error") ?? "").includes(`${field} already taken`),
  ).length;
  check(
    `20 parallel user creations with one ${field === "username" ? "username" : "e-mail"}: exactly one 201, the others 400 "${field} already taken"`,
    answers.filter((r) => r.status === 201).length === 1 && taken === 19,
    histogram(answers.map((r) => `${r.status}`)),
  );
}

it("20 parallel user creations with one username, and 20 with one e-mail: one 201 each", async () => {
  const name = unique("Race").slice(0, 30);
  await raceUsers("username", name);
  const mail = `${unique("race")}@example.test`.toUpperCase();
  await raceUsers("user_email", mail);
  raced = { name, mail };
});

// Idempotency keys fold ASCII letters only: the Kelvin sign K is not K, and a request_id
// with whitespace around it is refused. 40 parallel credits with one title (same user, amount and
// second) must still get 40 different slugs (checked in D1 below).
it("request_ids fold ASCII only, refuse surrounding whitespace; 40 parallel same-titled credits land", async () => {
  const kelvin = unique("kelvin-");
  const [latin, sign] = await Promise.all(
    [`${kelvin}K`, `${kelvin}\u212A`].map((request_id) =>
      post("/credits", { user_id: keyUser.id, wallet_id: wallet, amount: "1.00", request_id }),
    ),
  );
  check(
    "credits whose request_ids differ only in K and the Kelvin sign K (U+212A): both land as two entries",
    latin?.status === 200 &&
      sign?.status === 200 &&
      at(latin.json, "data", "transaction_id") !== at(sign.json, "data", "transaction_id"),
    `${latin?.status} ${latin?.text} | ${sign?.status} ${sign?.text}`,
  );
  const spaced = await post("/credits", {
    user_id: keyUser.id,
    wallet_id: wallet,
    amount: "1.00",
    request_id: ` ${kelvin}K`,
  });
  check(
    'a request_id with whitespace around it: 400 "request_id must not begin or end with whitespace"',
    spaced.status === 400 &&
      at(spaced.json, "error", "request_id") === "request_id must not begin or end with whitespace",
    `${spaced.status} ${spaced.text}`,
  );
  const titled = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      post("/credits", {
        user_id: keyUser.id,
        wallet_id: wallet,
        amount: "2.00",
        request_id: `${kelvin}-t${i}`,
      }),
    ),
  );
  check(
    "40 parallel credits of one amount to one user: all answered 200",
    titled.every((r) => r.status === 200),
    histogram(titled.map((r) => r.status)),
  );
});

it("D1 itself holds the same entries, balances, users and slugs", async () => {
  const ids = [dupUser.id, manyUser.id, debitUser.id].join(",");
  const perUser = await d1(
    ctx(),
    `SELECT t.user_id, count(*) AS n, b.balance_minor FROM transactions t JOIN balances b ON b.user_id = t.user_id AND b.wallet_id = t.wallet_id
       WHERE t.wallet_id = '${wallet}' AND t.user_id IN (${ids}) GROUP BY t.user_id`,
  );
  const [names = {}] = await d1(
    ctx(),
    `SELECT (SELECT count(*) FROM users WHERE lower(username) = lower('${raced.name}')) AS by_name,
            (SELECT count(*) FROM users WHERE lower(email) = lower('${raced.mail}')) AS by_mail`,
  );
  const [slugs = {}] = await d1(
    ctx(),
    `SELECT (SELECT count(*) FROM transactions WHERE user_id = ${keyUser.id}) AS n, (SELECT count(DISTINCT slug) FROM transactions WHERE user_id = ${keyUser.id}) AS distinct_slugs,
       (SELECT count(*) FROM (SELECT slug FROM transactions WHERE slug <> '' GROUP BY slug HAVING count(*) > 1)) AS repeated`,
  );
  const row = (id: number) => perUser.find((r) => r.user_id === id) ?? {};
  check(
    "D1: 1 entry for the duplicated request, 2,000 for the distinct credits, 14 for the debits; balances in minor units exact",
    row(dupUser.id).n === 1 &&
      row(manyUser.id).n === DISTINCT_CREDITS &&
      row(manyUser.id).balance_minor === expected &&
      row(debitUser.id).n === 14 &&
      row(debitUser.id).balance_minor === 25,
    JSON.stringify(perUser),
  );
  check(
    "D1: one user row for the raced username, one for the raced e-mail",
    names.by_name === 1 && names.by_mail === 1,
    JSON.stringify(names),
  );
  check(
    "D1: the 42 entries of those credits have 42 different slugs, and no slug in the table repeats",
    slugs.n === 42 && slugs.distinct_slugs === 42 && slugs.repeated === 0,
    JSON.stringify(slugs),
  );
  await checkLedgerInvariants(ctx(), "after the concurrency checks");
});

endOfSection();

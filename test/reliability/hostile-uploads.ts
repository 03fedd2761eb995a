// The hostile-input section's oversized and pathological bodies: streamed (chunked) uploads over the
// limit, and bodies built to make a parser work hard.
import type { Ctx } from "./api";
import {
  at,
  check,
  errorCode,
  figures,
  histogram,
  http,
  median,
  note,
  send,
  sleep,
  timed,
  truncate,
  unique,
} from "./harness";
import { jsonText } from "./hostile-input";
import { type Fixtures, JSON_UTF8 } from "./hostile-routes";
import { tableCounts } from "./ledger";

/** A body without Content-Length, sent in 16 KiB chunks. */
function streamOf(text: string) {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 16_384) controller.enqueue(bytes.slice(i, i + 16_384));
      controller.close();
    },
  });
}

/**
 * Streamed (chunked) uploads over 64 KiB, one at a time: the limit must hold without Content-Length.
 * The worker answers 413 once the limit is passed, after reading the rest of the upload (up to
 * 1 MiB, src/http/body-limit.ts); the client sees the 413, or, should the upload be cut, the
 * connection reset (directly, or as a 413 whose body was cut). Any
 * other answer fails; the next request, a POST, must be answered normally; nothing may be written
 * (the refused batch's table counts cover these).
 */
export async function streamedUploads(ctx: Ctx, f: Fixtures) {
  const outcomes: string[] = [];
  const wrong: string[] = [];
  const targets: [string, () => string][] = [
    [
      "/credits",
      () =>
        jsonText([
          ["user_id", f.a.id],
          ["wallet_id", f.wallet],
          ["amount", "1.00"],
          ["request_id", unique("up-")],
          ["note", "x".repeat(300_000)],
        ]),
    ],
    [
      "/users",
      () =>
        jsonText([
          ["username", unique("up")],
          ["user_email", `${unique("up")}@example.test`],
          ["user_password", "upload-pass"],
          ["first_name", "y".repeat(300_000)],
        ]),
    ],
    [
      "/transfers",
      () =>
        `from_user_id=${f.a.id}&to_user_id=${f.b.id}&wallet_id=${f.wallet}&amount=1&request_id=${unique("up-")}&note=${"z".repeat(300_000)}`,
    ],
  ];
  for (const size of [65_600, 300_000]) {
    for (const [path, body] of targets) {
      const text = body().slice(0, size);
      const contentType = text.startsWith("{")
        ? "application/json"
        : "application/x-www-form-urlencoded";
      let outcome: string | undefined;
      try {
        const res = await http(`${ctx.api}${path}`, {
          method: "POST",
          headers: { Authorization: ctx.adminAuth, "Content-Type": contentType },
          body: streamOf(text),
          duplex: "half",
          timeoutMs: 10_000,
        });
        if (
          res.status === 413 &&
          at(res.json, "message") === "Payload too large" &&
          at(res.json, "status_code") === 413
        )
          outcome = "413";
        else if (
          res.status === 413 &&
          res.json === undefined &&
          res.headers.get("content-type") === JSON_UTF8
        )
          outcome = "cut (413, body cut)";
        else wrong.push(`${path} ${size} B → ${res.status} ${truncate(res.text, 120)}`);
      } catch (error) {
        const code = errorCode(error);
        if (["ECONNRESET", "UND_ERR_SOCKET", "EPIPE", "terminated"].includes(code))
          outcome = `cut (${code})`;
        else wrong.push(`${path} ${size} B → ${code}`);
      }
      if (outcome) outcomes.push(outcome);
      // The next request must find the server as it was: a refused upload is read to its end, up
      // to 1 MiB (src/http/body-limit.ts), not left half-read on the connection.
      await sleep(100);
      let next: string;
      try {
        const res = await http(`${ctx.api}/credits`, {
          method: "POST",
          headers: { Authorization: ctx.adminAuth, "Content-Type": "application/json" },
          body: "{}",
          timeoutMs: 10_000,
        });
        next = res.status === 400 ? "ok" : `${res.status} ${truncate(res.text, 120)}`;
      } catch (error) {
        next = errorCode(error);
      }
      if (next !== "ok")
        wrong.push(`after ${path} ${size} B the next POST /credits answered ${next}, not 400`);
    }
  }
  figures.streamedUploads = histogram(outcomes);
  note(`streamed uploads over 64 KiB: ${histogram(outcomes)}`);
  check(
    `${outcomes.length + wrong.length} streamed (chunked) uploads over 64 KiB: each refused with 413 or cut off after the limit, and the server answers normally after each`,
    wrong.length === 0 && outcomes.includes("413"),
    wrong.join("\n") || "no upload got its 413 through",
  );
}

/**
 * Bodies built to make a parser work hard: each must be answered 400 in its route's
 * envelope, write nothing, and not hold up an ordinary request sent at the same moment. The figures
 * (medians of the hostile answers and of the balance reads sent beside them, against quiet reads)
 * are printed; timing is reported, not asserted.
 */
export async function pathologicalBodies(ctx: Ctx, f: Fixtures) {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const json = { "Content-Type": "application/json" };
  const login = (password: string) =>
    `{"user_email":"${f.adminEmail}","user_password":${password}}`;
  const creditBody = (extra: string) =>
    `{"user_id":${f.a.id},"wallet_id":"${f.wallet}","amount":1,"request_id":"${unique("pb-")}"${extra}}`;
  const rawCredit = (bytes: number[]) =>
    new Uint8Array([
      ...utf8(`{"user_id":${f.a.id},"wallet_id":"${f.wallet}","amount":1,"request_id":"pb-`),
      ...bytes,
      ...utf8('"}'),
    ]);
  const TOO_LONG: [string, string] = ["body", "a JSON number is longer than 40 characters"];
  // A body json_decode refuses (invalid UTF-8, a lone surrogate escape): WordPress's answer.
  const NOT_JSON: [string, string] = ["code", "rest_invalid_json"];
  const admin = { Authorization: ctx.adminAuth };
  const cases: [
    string,
    string,
    Record<string, string>,
    string | Uint8Array<ArrayBuffer>,
    [string, string],
  ][] = [
    [
      "login: a number of 64,000 zeros after 1.",
      "/users/login",
      {},
      login(`1.${"0".repeat(64_000)}`),
      TOO_LONG,
    ],
    [
      "login: 0.000…01 (63,990 zeros)",
      "/users/login",
      {},
      login(`0.${"0".repeat(63_990)}1`),
      TOO_LONG,
    ],
    [
      "credits: 4,000 numbers 1e-399 in one object",
      "/credits",
      admin,
      creditBody(Array.from({ length: 4_000 }, (_, i) => `,"n${i}":1e-399`).join("")),
      ["body", "a JSON object or array has more than 1000 members"],
    ],
    [
      "credits: 8,000 numbers 1e-399 read as the amount",
      "/credits",
      admin,
      creditBody(
        `,"amount":[${Array(8)
          .fill(`[${Array(1000).fill("1e-399").join(",")}]`)
          .join(",")}]`,
      ),
      ["amount", "amount requires a valid amount"],
    ],
    [
      "credits: 20,000 levels of nesting",
      "/credits",
      admin,
      creditBody(`,"n":${"[".repeat(20_000)}${"]".repeat(20_000)}`),
      ["body", "JSON nesting is deeper than 32 levels"],
    ],
    ["credits: request_id with a raw 0xFF", "/credits", admin, rawCredit([0xff]), NOT_JSON],
    [
      "credits: request_id with a raw 0xFE (differs from the one before only in an invalid byte)",
      "/credits",
      admin,
      rawCredit([0xfe]),
      NOT_JSON,
    ],
    [
      "credits: a lone surrogate escape",
      "/credits",
      admin,
      creditBody(',"note":"\\udc00"'),
      NOT_JSON,
    ],
  ];
  const read = () =>
    send(ctx.api, "GET", "/user-wallet-balance", {
      auth: ctx.adminAuth,
      query: { user_id: f.a.id, wallet_id: f.wallet },
    });
  const quiet: number[] = [];
  for (let i = 0; i < 15; i++) quiet.push((await timed(read)).ms);
  const before = await tableCounts(ctx);
  const hostileMs: number[] = [];
  const besideMs: number[] = [];
  const wrong: string[] = [];
  for (const [name, path, auth, body, [part, text]] of cases) {
    for (let round = 0; round < 3; round++) {
      const [hostile, beside] = await Promise.all([
        timed(() =>
          http(`${ctx.api}${path}`, { method: "POST", headers: { ...auth, ...json }, body }),
        ),
        timed(read),
      ]);
      hostileMs.push(hostile.ms);
      besideMs.push(beside.ms);
      const error = at(hostile.res.json, "error");
      const said =
        part === "code"
          ? at(hostile.res.json, "code")
          : Array.isArray(error)
            ? at(error, 0, part, 0)
            : at(error, part);
      if (hostile.res.status !== 400 || said !== text)
        wrong.push(`${name}: ${hostile.res.status} ${truncate(hostile.res.text, 160)}`);
      if (beside.res.status !== 200)
        wrong.push(`${name}: the balance read beside it answered ${beside.res.status}`);
    }
  }
  const after = await tableCounts(ctx);
  const ms = (values: number[]) => `${median(values).toFixed(1)} ms`;
  figures.pathological = {
    cases: cases.length * 3,
    hostileMedianMs: median(hostileMs),
    besideMedianMs: median(besideMs),
    quietMedianMs: median(quiet),
    hostileMaxMs: Math.max(...hostileMs),
  };
  note(
    `pathological bodies: ${cases.length * 3} answered in ${ms(hostileMs)} (median; slowest ${Math.max(...hostileMs).toFixed(1)} ms); ` +
      `a balance read sent beside each took ${ms(besideMs)} against ${ms(quiet)} alone (ratio ${(median(besideMs) / median(quiet)).toFixed(2)})`,
  );
  check(
    `${cases.length * 3} pathological bodies (64,000-digit numbers, thousands of numbers 1e-399, 20,000 levels of nesting, invalid UTF-8, lone surrogates) answered 400 naming the limit (rest_invalid_json for a body json_decode refuses), writing nothing`,
    wrong.length === 0 && JSON.stringify(before) === JSON.stringify(after),
    wrong.slice(0, 5).join("\n") ||
      `before ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`,
  );
}

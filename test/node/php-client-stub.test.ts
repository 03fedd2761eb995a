// The PHP client (clients/php/WalletClient.php) against a stub server on 127.0.0.1, by curl and by
// the WordPress path (test/clients/wordpress-http.php): when it retries and how long it waits,
// which exception each refusal is, and what an answer that is not the envelope gives. The client's
// scenario against the real service is test/clients/php-client.test.ts.
import { execFile, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const CALL = fileURLToPath(new URL("../clients/php-call.php", import.meta.url));
const WOOCOMMERCE = fileURLToPath(new URL("../clients/woocommerce-example.php", import.meta.url));
const hasPhp = spawnSync("php", ["-v"]).status === 0;

type Answer = (res: ServerResponse) => void;
type Seen = { at: number; method: string; url: string; body: string };
let answers: Answer[] = [];
let seen: Seen[] = [];
let site = "";
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    seen.push({ at: Date.now(), method: req.method!, url: req.url!, body });
    // The last answer is given again to every later request.
    (answers.length > 1 ? answers.shift()! : answers[0]!)(res);
  });
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { "Content-Type": "application/json; charset=UTF-8", ...headers });
    res.end(JSON.stringify(body));
  };
}
const refusal = (status: number, message: string, error: unknown, headers = {}) =>
  json(status, { status_code: status, status: false, message, error }, headers);
const busy = (retryAfter: string) =>
  refusal(
    503,
    "Service temporarily unavailable",
    { retry: "The database is busy" },
    {
      "Retry-After": retryAfter,
    },
  );
const credited = json(200, {
  status_code: 200,
  status: true,
  message: "Transaction Completed",
  data: { transaction_id: 9, user_id: 7 },
});

async function php(transport: string, call: string, args: unknown[], options = [2, 0.05, 5]) {
  const spec = JSON.stringify({ call, args, options });
  const { stdout } = await run("php", [CALL, site, transport, spec]);
  return JSON.parse(stdout) as {
    result?: unknown;
    thrown?: { class: string; status?: number; message: string; error?: unknown };
    warnings: string[];
  };
}
const gaps = () => seen.slice(1).map((s, i) => s.at - seen[i]!.at);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = [];
  seen = [];
});

describe.skipIf(!hasPhp).each(["curl", "wordpress"])("the PHP client by %s", (transport) => {
  it("waits out a 503's Retry-After before retrying a credit with its request_id", async () => {
    answers = [busy("1"), credited];
    const out = await php(transport, "credit", [7, "ngn", "12.50", "order-1", "Sale"]);
    expect(out).toEqual({ result: { transaction_id: 9, user_id: 7 }, warnings: [] });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ amount: "12.50", request_id: "order-1" });
    expect(gaps()[0]).toBeGreaterThanOrEqual(950);
  });

  it("backs off on the platform's 503, and gives up after two retries", async () => {
    answers = [
      (res) => {
        res.writeHead(503, { "Content-Type": "text/html" });
        res.end("<html>Service Unavailable</html>");
      },
    ];
    const out = await php(transport, "debit", [7, "ngn", "1", "order-2"], [2, 0.2, 5]);
    expect(out.thrown).toMatchObject({ class: "WalletLedger\\TransportError" });
    expect(seen).toHaveLength(3);
    const [first, second] = gaps();
    expect(first).toBeGreaterThanOrEqual(190);
    expect(second).toBeGreaterThanOrEqual(390);
  });

  it("throws a 503 naming a missing setting at once: no retry mends it", async () => {
    answers = [refusal(503, "Service not configured", { missing: ["JWT_SECRET"] }), credited];
    const out = await php(transport, "credit", [7, "ngn", "1", "order-5"]);
    expect(out.thrown).toMatchObject({
      class: "WalletLedger\\Unavailable",
      status: 503,
      error: { missing: ["JWT_SECRET"] },
    });
    expect(seen).toHaveLength(1);
  });

  it("does not sit out a Retry-After longer than 30 s: the 503 is thrown", async () => {
    answers = [busy("120")];
    const out = await php(transport, "credit", [7, "ngn", "1", "order-3"]);
    expect(out.thrown).toMatchObject({ class: "WalletLedger\\Unavailable", status: 503 });
    expect(seen).toHaveLength(1);
  });

  it("retries no read, and no 429", async () => {
    answers = [busy("1")];
    expect((await php(transport, "balance", [7, "ngn"])).thrown?.class).toBe(
      "WalletLedger\\Unavailable",
    );
    answers = [refusal(429, "Too many requests", { rate: "…" }, { "Retry-After": "1" })];
    expect((await php(transport, "credit", [7, "ngn", "1", "order-4"])).thrown?.class).toBe(
      "WalletLedger\\Unavailable",
    );
    expect(seen).toHaveLength(2);
  });

  it.each([
    [400, "invalid input", "InvalidInput"],
    [400, "Insufficient Balance", "InsufficientBalance"],
    [401, "Permission denied", "PermissionDenied"],
    [403, "Permission denied", "PermissionDenied"],
    [404, "Invalid User credentials", "NotFound"],
    [409, "Transaction already exists", "AlreadyExists"],
    [409, "Hold already resolved", "Conflict"],
    [413, "Payload too large", "WalletRefusal"],
    [500, "Internal error", "WalletRefusal"],
  ])("throws a %i %s as %s, once", async (status, message, kind) => {
    answers = [refusal(status, message, { field: "why" })];
    const out = await php(transport, "credit", [7, "ngn", "1", "order-5"]);
    expect(out).toEqual({
      thrown: { class: `WalletLedger\\${kind}`, status, message, error: { field: "why" } },
      warnings: [],
    });
    expect(seen).toHaveLength(1);
  });

  it.each([
    ["an HTML 502", (res: ServerResponse) => res.writeHead(502).end("<html>Bad gateway</html>")],
    ["an empty 200", (res: ServerResponse) => res.writeHead(200).end()],
    ["a JSON list", json(200, [1, 2])],
  ])("throws TransportError, without a warning, for %s", async (_, answer) => {
    answers = [answer];
    const out = await php(transport, "balance", [7, "ngn"]);
    expect(out.thrown?.class).toBe("WalletLedger\\TransportError");
    expect(out.warnings).toEqual([]);
  });
});

describe.skipIf(!hasPhp)("docs/clients.md's WooCommerce example, as written", () => {
  it.each([
    ["a debit", credited, ["note: Paid from the wallet."]],
    ["a repeat", refusal(409, "Transaction already exists", { txn_id: "9" }), []],
    [
      "a wallet that cannot pay",
      refusal(400, "Insufficient Balance", { amount: "Insufficient Balance" }),
      ["status: on-hold: The wallet cannot pay this order."],
    ],
    [
      "another refusal",
      refusal(403, "Permission denied", {}),
      ["note: Wallet refused (403): Permission denied"],
    ],
    [
      "a service it cannot reach",
      (res: ServerResponse) => res.writeHead(502).end("<html>Bad gateway</html>"),
      [
        "note: Wallet not reached, run again: HTTP 502: not a wallet answer: <html>Bad gateway</html>",
      ],
    ],
  ])("answers %s", async (_, answer, order) => {
    answers = [answer];
    const { stdout } = await run("php", [WOOCOMMERCE, site]);
    expect(JSON.parse(stdout)).toEqual(order);
    expect(JSON.parse(seen[0]!.body)).toEqual({
      user_id: 7,
      wallet_id: "ngn",
      amount: "12.50",
      request_id: "wc-order-1001",
      note: "Order #1001",
    });
  });
});

describe("the PHP client's source", () => {
  it("calls no function PHP 8.5 deprecates (curl_close: a no-op since 8.0, a notice per call)", () => {
    const source = readFileSync(
      new URL("../../clients/php/WalletClient.php", import.meta.url),
      "utf8",
    );
    expect(source).not.toMatch(/\b(curl_close|curl_share_close)\s*\(/);
  });
});

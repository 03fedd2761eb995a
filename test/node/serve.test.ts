// `npm run serve` from a fresh copy of the project (no .dev.vars, no local state): it prepares the
// site as `npm run dev` does, then serves the deploy bundle under Miniflare alone, and the README's
// first credit works against it. A copy, so the developer's own .wrangler/ and .dev.vars are untouched.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { endProcessGroup, freePort } from "../../scripts/lib/server";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { copyProject, scriptCommand } from "./project-copy";

const work = mkdtempSync(path.join(tmpdir(), "wallet-serve-test-"));
let child: ChildProcess | undefined;
/** `npm run serve`'s own command (`tsx …`), run as npm runs it, quiet. */
const SERVE = scriptCommand("serve", ["--quiet"]);

afterAll(async () => {
  if (child) await endProcessGroup(child);
  rmSync(work, { recursive: true, force: true });
});

it("prepares a fresh copy as npm run dev does and serves the bundle: sign in, credit, balance", async () => {
  copyProject(work);
  const port = await freePort();
  let output = "";
  child = spawn(...SERVE, {
    cwd: work,
    detached: true,
    env: { ...process.env, ...offlineEnv(), PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  let health: Response | undefined;
  while (Date.now() < deadline && child.exitCode === null) {
    health = await fetch(`${base}/health`).catch(() => undefined);
    if (health?.status === 200) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(health?.status, output).toBe(200);
  expect(output).toContain("the deploy bundle under Miniflare alone");
  expect(existsSync(path.join(work, ".dev.vars")), "a dev-only .dev.vars written").toBe(true);
  // Its token secret signs the local administrator's tokens: for its owner's eyes only.
  expect(statSync(path.join(work, ".dev.vars")).mode & 0o777, ".dev.vars's mode").toBe(0o600);
  expect(existsSync(path.join(work, ".wrangler/state/v3/d1")), "local D1 state").toBe(true);
  // The secrets reach the server in its environment, never its command line, which any user of
  // the machine can list (ps).
  const secret = /^JWT_SECRET=(.+)$/m.exec(readFileSync(path.join(work, ".dev.vars"), "utf8"))?.[1];
  expect(secret).toBeTruthy();
  const commandLines = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return ""; // gone since the listing
      }
    });
  expect(commandLines.filter((line) => line.includes(secret!))).toEqual([]);

  const api = `${base}/wp-json/wallet/v1`;
  const login = await fetch(`${api}/users/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_email: "admin@example.com", user_password: "wallet-admin" }),
  });
  expect(login.status).toBe(200);
  const { data } = (await login.json()) as { data: { access_token: string } };
  const auth = { Authorization: `Bearer ${data.access_token}` };
  const credit = await fetch(`${api}/credits`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({
      user_id: 1,
      wallet_id: "ngn",
      amount: "1500.00",
      request_id: "first-credit",
      note: "hello",
    }),
  });
  expect(await credit.json()).toEqual({
    status_code: 200,
    status: true,
    message: "Transaction Completed",
    data: { transaction_id: 1, user_id: 1 },
  });
  const balance = await fetch(`${api}/user-wallet-balance?user_id=1&wallet_id=ngn&formatted=yes`, {
    headers: auth,
  });
  expect(((await balance.json()) as { data: unknown }).data).toEqual({
    ngn: 1500,
    formatted: { ngn: "₦1,500.00" },
  });

  // A GET's body is read however it is sent, streamed (chunked) too, up to the 64 KiB limit.
  const streamedGet = (body: string, type = "application/json", query = "") =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${api}/user-wallet-balance${query}`, {
        method: "GET",
        headers: { ...auth, "Content-Type": type, "Transfer-Encoding": "chunked" },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  const streamed = await streamedGet(JSON.stringify({ user_id: 1, wallet_id: "ngn" }));
  expect(streamed).toEqual({
    status: 200,
    text: '{"status_code":200,"status":true,"message":"Wallet Balance retrieved","data":{"ngn":1500}}',
  });
  // A form body WordPress reads on POST, PUT, PATCH and DELETE only: a GET's is not its parameters.
  const formOnGet = await streamedGet(
    "user_id=999999&wallet_id=nope",
    "application/x-www-form-urlencoded",
    "?user_id=1&wallet_id=ngn",
  );
  expect(formOnGet.text).toBe(streamed.text);
  const tooLarge = await streamedGet(`{"user_id":1,"note":"${"a".repeat(70_000)}"}`);
  expect(tooLarge.status, tooLarge.text).toBe(413);

  // A body that cannot be read (malformed chunks) is the client's fault, not the database's.
  const malformed = await new Promise<string>((resolve, reject) => {
    let answer = "";
    const socket = connect(port, "127.0.0.1", () =>
      socket.end(
        "POST /wp-json/wallet/v1/users/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      ),
    );
    socket.on("data", (chunk: Buffer) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
  expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
  expect(malformed).toContain("the body could not be read whole");
  expect(output).not.toContain("d1_unavailable");
});

// What lib/config-check.ts does not judge, Miniflare's schema does, once the local D1 is prepared.
it("says which setting of wrangler.toml Miniflare refuses, in a line, and exits 1", async () => {
  // The same copy's local D1: the first server, were it still running, could hold it (its cron's
  // writes) as this run seeds it, which fails "database is locked".
  if (child) await endProcessGroup(child);
  const config = path.join(work, "wrangler.toml");
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace("max_batch_size = 10", "max_batch_size = 500"),
  );
  const run = spawnSync(...SERVE, {
    cwd: work,
    env: { ...process.env, ...offlineEnv(), PORT: String(await freePort()) },
    encoding: "utf8",
    timeout: 90_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(1);
  expect(run.stderr).toContain(
    "wrangler.toml holds a setting Miniflare refuses:\n  queueConsumers.wallet-webhooks.maxBatchSize: Too big",
  );
  expect(run.stderr).not.toContain("ZodError");
});

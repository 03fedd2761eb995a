// A throwaway local server for benchmarks and reliability checks: its own D1 state in a temporary
// folder, migrated, with an administrator, served by `wrangler dev` on 127.0.0.1 in its own process
// group, and stopped (the whole group) by `stop()`.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureAdmin } from "./admin.mjs";
import { startWrangler, wrangler } from "./wrangler.mjs";

export const ADMIN = {
  username: "benchadmin",
  email: "benchadmin@example.test",
  password: "bench-admin-pass",
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server at ${url} did not come up in ${timeoutMs} ms`);
}

/** Servers started here and not yet stopped, so a caller's Ctrl-C handler can stop them all. */
const live = new Set();

/** Stops every server this module started and has not stopped yet (for signal and error handlers). */
export async function stopAllServers(options) {
  await Promise.all([...live].map((server) => server.stop(options)));
}

/**
 * Starts the worker (or another wrangler config) on a free port. `persistTo` reuses a state folder
 * (for restarts); by default a new temporary one is made and removed on `stop({ keepState: false })`.
 */
export async function startServer({
  config = "wrangler.toml",
  persistTo,
  port,
  logLevel = "warn",
  seedAdmin = true,
} = {}) {
  const stateDir = persistTo ?? mkdtempSync(join(tmpdir(), "wallet-state-"));
  const persist = ["--persist-to", stateDir];
  const configArgs = ["--config", config];
  let listenPort;
  try {
    wrangler(["d1", "migrations", "apply", "DB", "--local", ...configArgs, ...persist], {
      quiet: true,
    });
    if (seedAdmin)
      ensureAdmin({ target: "--local", ...ADMIN, wranglerArgs: [...configArgs, ...persist] });
    listenPort = port ?? (await freePort());
  } catch (error) {
    if (persistTo === undefined) rmSync(stateDir, { recursive: true, force: true }); // the temporary state made above
    throw error;
  }
  const secret = randomBytes(32).toString("hex");
  const child = startWrangler(
    [
      "dev",
      ...configArgs,
      ...persist,
      "--ip",
      "127.0.0.1",
      "--port",
      String(listenPort),
      "--show-interactive-dev-session=false",
      `--log-level=${logLevel}`,
      "--var",
      `JWT_SECRET:${secret}`,
      "--var",
      `SITE_URL:http://127.0.0.1:${listenPort}`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const base = `http://127.0.0.1:${listenPort}`;
  const server = {
    base,
    api: `${base}/wp-json/wallet/v1`,
    stateDir,
    port: listenPort,
    child,
    /** The JWT_SECRET this server signs with (a fresh random one per start), for minting test tokens. */
    jwtSecret: secret,
    /** Stops the whole process group: SIGTERM, or SIGKILL to simulate a crash. */
    async stop({ signal = "SIGTERM", keepState = persistTo !== undefined } = {}) {
      const running = () => child.exitCode === null && child.signalCode === null; // a signalled child has exitCode null
      if (running()) {
        const exited = new Promise((r) => child.once("exit", r));
        try {
          process.kill(-child.pid, signal);
        } catch {
          // already gone
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (running()) {
          try {
            process.kill(-child.pid, "SIGKILL"); // did not stop in 10 s
          } catch {
            // gone meanwhile
          }
        }
      }
      live.delete(server);
      if (!keepState) rmSync(stateDir, { recursive: true, force: true });
    },
  };
  live.add(server);
  try {
    await waitUntilUp(`${base}/wp-json/`, child, 60_000);
  } catch (error) {
    await server.stop(); // a server that never came up is not left running
    throw error;
  }
  return server;
}

/** Signs in as the seeded administrator and returns `Authorization` header value. */
export async function adminAuth(api) {
  const res = await fetch(`${api}/users/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_email: ADMIN.email, user_password: ADMIN.password }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`admin login failed: ${JSON.stringify(body)}`);
  return `Bearer ${body.data.access_token}`;
}

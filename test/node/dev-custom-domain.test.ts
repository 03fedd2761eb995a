// `wrangler dev` as the tools run it (npm run dev, the browser and reliability suites), once
// wrangler.toml names a custom domain as docs/deploying.md says to: wrangler would show the Worker
// that domain over plain http for every request to 127.0.0.1, so the console, which sends plain
// http to https on any address but a local one, would redirect each page to itself.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { ADMIN, type Server, startServer } from "../../scripts/lib/server";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Beside wrangler.toml, whose paths (main, assets, migrations) are relative to it.
const config = path.join(ROOT, `wrangler.custom-domain-${process.pid}.toml`);
let server: Server | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(config, { force: true });
});

it("serves the console on 127.0.0.1 under wrangler dev when wrangler.toml names a custom domain", {
  timeout: 180_000,
}, async () => {
  const shipped = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  writeFileSync(
    config,
    `routes = [{ pattern = "wallet.example.com", custom_domain = true }]\n${shipped}`,
  );
  server = await startServer({ config });
  const page = await fetch(`${server.base}/wallet-admin/sign-in`, { redirect: "manual" });
  expect(page.status, page.headers.get("location") ?? "").toBe(200);
  // Signed in as a browser on that address would be: its Origin is the console's own.
  const signedIn = await fetch(`${server.base}/wallet-admin/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: {
      Origin: server.base,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ email: ADMIN.email, password: ADMIN.password }),
  });
  expect(signedIn.status).toBe(303);
  const session = signedIn.headers.getSetCookie().find((c) => c.startsWith("wallet_admin="));
  expect(session).toBeDefined();
  const overview = await fetch(`${server.base}/wallet-admin/`, {
    redirect: "manual",
    headers: { Cookie: session!.split(";")[0]! },
  });
  expect(overview.status).toBe(200);
  expect(await overview.text()).toContain("Overview");
});

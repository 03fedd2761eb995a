// The interactive API reference (/api-reference): its page, script and styles come from this
// Worker under a Content-Security-Policy that lets nothing from elsewhere run, load or be sent to.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { testApp } from "./helpers";

const SITE = "http://localhost";
const app = testApp();

const get = (path: string, init: RequestInit = {}) => app.request(`${SITE}${path}`, init, env);

/** A CSP's directives by name, each with its sources. */
function directives(csp: string) {
  return new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** What the page loads: every script's src and stylesheet's href. */
function loads(html: string) {
  return [
    ...[...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]!),
  ];
}

function expectStrictCsp(res: Response, what: string) {
  const csp = res.headers.get("content-security-policy");
  expect(csp, what).not.toBeNull();
  const d = directives(csp!);
  expect(d.get("default-src"), what).toEqual(["'none'"]);
  expect(d.get("script-src"), what).toEqual(["'self'"]);
  expect(d.get("connect-src"), what).toEqual(["'self'"]);
  expect(d.get("object-src"), what).toEqual(["'none'"]);
  expect(d.get("base-uri"), what).toEqual(["'none'"]);
  expect(d.get("form-action"), what).toEqual(["'none'"]);
  expect(d.get("frame-ancestors"), what).toEqual(["'none'"]);
  // Only this origin, a nonce or data: (images the script draws): no host, scheme or wildcard.
  for (const [name, sources] of d)
    for (const source of sources)
      expect(source, `${what}: ${name}`).toMatch(
        /^('self'|'none'|'nonce-[A-Za-z0-9+/=]+'|data:|'unsafe-inline')$/,
      );
  // 'unsafe-inline' for style attributes alone (the renderer sets some); never for scripts or
  // <style> elements, and no 'unsafe-eval'.
  expect(d.get("style-src-attr"), what).toEqual(["'unsafe-inline'"]);
  expect(csp!.replace("style-src-attr 'unsafe-inline'", ""), what).not.toMatch(
    /unsafe-|\*|https?:/,
  );
  return d;
}

describe("GET /api-reference", () => {
  it("answers a page under a strict CSP that loads only this origin's script, with no inline script", async () => {
    const res = await get("/api-reference");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const d = expectStrictCsp(res, "the page");
    const html = await res.text();
    // No URL of another origin anywhere in the page, and no CDN named.
    expect(html).not.toMatch(/https?:|\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(html).not.toMatch(/jsdelivr|unpkg|cdnjs|fonts\./i);
    // Every script is a file of this origin; none carries code inline.
    expect(html).not.toMatch(/<script\b(?![^>]*\bsrc=)[^>]*>/);
    const paths = loads(html);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^\/api-reference\/[\w.-]+$/);
    // The renderer's injected styles carry the nonce the CSP names; a new one on every answer.
    const nonce = html.match(/<meta property="csp-nonce" content="([^"]+)"/)?.[1];
    expect(nonce).toBeDefined();
    expect(d.get("style-src")).toEqual(["'self'", `'nonce-${nonce}'`]);
    const again = await (await get("/api-reference")).text();
    expect(again).not.toContain(nonce);
  });

  it("serves each script the page loads from this Worker: JavaScript, nosniff, the same CSP, no CDN", async () => {
    const html = await (await get("/api-reference")).text();
    for (const path of loads(html)) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe("text/javascript; charset=utf-8");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expectStrictCsp(res, path);
      const body = await res.text();
      expect(body.length, path).toBeGreaterThan(0);
      expect(body, path).not.toMatch(/cdn\.jsdelivr\.net|unpkg\.com/);
    }
  });

  it("loads the renderer, then starts it on the OpenAPI document with its fonts and telemetry off", async () => {
    const html = await (await get("/api-reference")).text();
    const paths = loads(html);
    const scripts = await Promise.all(paths.map(async (p) => [p, await (await get(p)).text()]));
    const start = scripts.find(([, body]) => body!.includes("createApiReference"));
    expect(start, "the script that starts the renderer").toBeDefined();
    const config = start![1]!;
    expect(config).toContain('"url":"/wp-json/wallet/v1/openapi.json"');
    expect(config).toContain('"withDefaultFonts":false');
    expect(config).toContain('"telemetry":false');
    expect(config).toContain('"hideClientButton":true');
    // zod inside the bundle must not probe eval (a CSP violation) before the bundle runs.
    expect(paths.indexOf(start![0]!)).toBeLessThan(paths.findIndex((p) => p.endsWith("scalar.js")));
    expect(config).toContain("jitless: true");
    // The OpenAPI document it reads is this origin's (connect-src 'self').
    const doc = await get("/wp-json/wallet/v1/openapi.json");
    expect(doc.status).toBe(200);
  });

  it("lets a browser keep the renderer's bundle and revalidate it by ETag (304)", async () => {
    const first = await get("/api-reference/scalar.js");
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    await first.body?.cancel();
    const again = await get("/api-reference/scalar.js", { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
    expectStrictCsp(again, "the 304");
    // The page itself is never kept: its nonce is new on every answer.
    expect((await get("/api-reference")).headers.get("cache-control")).toBe("no-store");
  });

  it("answers 404 for a file the reference does not serve", async () => {
    const res = await get("/api-reference/nothing.js");
    expect(res.status).toBe(404);
  });
});

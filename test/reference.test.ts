// The interactive API reference (/api-reference): its page, scripts and stylesheet come from this
// Worker under a Content-Security-Policy that lets nothing from elsewhere run, load or be sent to.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
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

/** What the page loads, in order: every script's src, and every stylesheet's href. */
function loads(html: string) {
  return {
    scripts: [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!),
    styles: [...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]!),
  };
}

function expectStrictCsp(res: Response, what: string) {
  const csp = res.headers.get("content-security-policy");
  expect(csp, what).not.toBeNull();
  const d = directives(csp!);
  expect(d.get("default-src"), what).toEqual(["'none'"]);
  expect(d.get("script-src"), what).toEqual(["'self'"]);
  // Stylesheets of this origin only: no nonce, no inline <style> or style attribute.
  expect(d.get("style-src"), what).toEqual(["'self'"]);
  expect(d.get("img-src"), what).toEqual(["'self'", "data:"]);
  expect(d.get("connect-src"), what).toEqual(["'self'"]);
  expect(d.get("object-src"), what).toEqual(["'none'"]);
  expect(d.get("base-uri"), what).toEqual(["'none'"]);
  expect(d.get("form-action"), what).toEqual(["'none'"]);
  expect(d.get("frame-ancestors"), what).toEqual(["'none'"]);
  // Only this origin, or data: for images: no host, scheme, wildcard or 'unsafe-…' anywhere.
  for (const [name, sources] of d)
    for (const source of sources)
      expect(source, `${what}: ${name}`).toMatch(/^('self'|'none'|data:)$/);
  expect(csp, what).not.toMatch(/unsafe-|\*|https?:/);
}

describe("GET /api-reference", () => {
  it("answers a page under a strict CSP that loads only this origin's files, with no inline script or style", async () => {
    const res = await get("/api-reference");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expectStrictCsp(res, "the page");
    const html = await res.text();
    // No URL of another origin anywhere in the page, and no CDN named.
    expect(html).not.toMatch(/https?:|\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(html).not.toMatch(/jsdelivr|unpkg|cdnjs|fonts\./i);
    // Every script is a file of this origin; none carries code inline, and no style is inline.
    expect(html).not.toMatch(/<script\b(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style\b|\bstyle=/);
    const { scripts, styles } = loads(html);
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    for (const path of [...scripts, ...styles]) expect(path).toMatch(/^\/api-reference\/[\w.-]+$/);
  });

  it("serves each file the page loads from this Worker: its content type, nosniff, the same CSP, no CDN", async () => {
    const { scripts, styles } = loads(await (await get("/api-reference")).text());
    const files = [
      ...scripts.map((path) => [path, "text/javascript; charset=utf-8"] as const),
      ...styles.map((path) => [path, "text/css; charset=utf-8"] as const),
    ];
    for (const [path, type] of files) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe(type);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expectStrictCsp(res, path);
      const body = await res.text();
      expect(body.length, path).toBeGreaterThan(0);
      expect(body, path).not.toMatch(/cdn\.jsdelivr\.net|unpkg\.com|fonts\.googleapis/);
    }
  });

  it("answers a file 503 naming ASSETS, not 500, on a deployment without the [assets] binding", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const unbound = { ...env, ASSETS: undefined };
    for (let i = 0; i < 2; i++) {
      const res = await app.request(`${SITE}/api-reference/swagger-ui.css`, {}, unbound);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status_code: 503,
        status: false,
        message: "Service not configured",
        error: { missing: ["ASSETS"] },
      });
    }
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines).toEqual([
      expect.objectContaining({
        setting: "ASSETS",
        problem: "is not bound (wrangler.toml [assets])",
      }),
    ]);
    // The page itself, and the rest of the service, need no assets.
    expect((await app.request(`${SITE}/api-reference`, {}, unbound)).status).toBe(200);
  });

  it("asks ASSETS with the caller's conditional and encoding headers only: no credential or cookie", async () => {
    const asked: Headers[] = [];
    const assets = {
      fetch: async (req: Request) => {
        asked.push(req.headers);
        return new Response(null, { status: 304, headers: { ETag: '"v1"' } });
      },
    };
    const res = await app.request(
      `${SITE}/api-reference/swagger-ui.css`,
      {
        headers: {
          Authorization: "Bearer secret-token",
          Cookie: "__Host-wallet_admin=session",
          "X-Api-Key": "wk_secret",
          "If-None-Match": '"v1"',
          "Accept-Encoding": "gzip, br",
        },
      },
      { ...env, ASSETS: assets },
    );
    expect(res.status).toBe(304);
    expect(asked).toHaveLength(1);
    expect(Object.fromEntries(asked[0]!)).toStrictEqual({
      "accept-encoding": "gzip, br",
      "if-none-match": '"v1"',
    });
  });

  it("serves a stylesheet that loads nothing: no @import, no web font, every url() a data: URL", async () => {
    const { styles } = loads(await (await get("/api-reference")).text());
    for (const path of styles) {
      const css = await (await get(path)).text();
      expect(css, path).not.toMatch(/@import|@font-face/);
      const urls = [...css.matchAll(/url\(\s*["']?([^"')\s]*)/g)].map((m) => m[1]!);
      expect(urls.length, path).toBeGreaterThan(0);
      for (const url of urls) expect(url, path).toMatch(/^data:/);
    }
  });

  it("loads the renderer, then starts it on the OpenAPI document with its validator badge off", async () => {
    const { scripts } = loads(await (await get("/api-reference")).text());
    const bodies = await Promise.all(scripts.map(async (p) => (await get(p)).text()));
    const start = bodies.findIndex((body) => body.includes("SwaggerUIBundle({"));
    expect(start, "the script that starts the renderer").toBeGreaterThan(-1);
    expect(scripts.findIndex((p) => p.endsWith("/swagger-ui-bundle.js"))).toBeLessThan(start);
    const config = bodies[start]!;
    expect(config).toContain('"url":"/wp-json/wallet/v1/openapi.json"');
    // The badge is an image from the validator's host, sent the document's address.
    expect(config).toContain('"validatorUrl":null');
    // No ?url= or ?configUrl= may point the page elsewhere; no token kept in localStorage.
    expect(config).toContain('"queryConfigEnabled":false');
    expect(config).toContain('"persistAuthorization":false');
    // The OpenAPI document it reads is this origin's (connect-src 'self').
    const doc = await get("/wp-json/wallet/v1/openapi.json");
    expect(doc.status).toBe(200);
  });

  it("lets a browser keep the renderer's files and revalidate them by ETag (304)", async () => {
    for (const path of ["/api-reference/swagger-ui-bundle.js", "/api-reference/swagger-ui.css"]) {
      const first = await get(path);
      expect(first.headers.get("cache-control"), path).toBe("no-cache");
      const etag = first.headers.get("etag");
      expect(etag, path).toBeTruthy();
      await first.body?.cancel();
      const again = await get(path, { headers: { "If-None-Match": etag! } });
      expect(again.status, path).toBe(304);
      expectStrictCsp(again, `the 304 of ${path}`);
    }
    // The page and the start script are never kept.
    expect((await get("/api-reference")).headers.get("cache-control")).toBe("no-store");
    expect((await get("/api-reference/start.js")).headers.get("cache-control")).toBe("no-store");
  });

  it("answers 404 for a file the reference does not serve, the package's other files among them", async () => {
    for (const path of [
      "/api-reference/nothing.js",
      "/api-reference/index.html",
      "/api-reference/swagger-initializer.js",
      "/api-reference/swagger-ui-standalone-preset.js",
      "/api-reference/scalar.js",
      // Names every object has: never asked of the assets.
      "/api-reference/constructor",
      "/api-reference/__proto__",
      "/api-reference/toString",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code, path).toBe("rest_no_route");
    }
  });
});

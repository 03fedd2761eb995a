// The interactive API reference (`GET /api-reference`): Scalar's standalone renderer over this
// service's OpenAPI document, all of it from this Worker. The renderer runs same-origin with the
// operator console and sees any token typed into its client, so it is a pinned copy served from
// here (wrangler.toml [assets]), never a CDN's latest, and the page's CSP lets nothing from
// elsewhere run, load, or receive a request.
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "./env";
import { NAMESPACE } from "./http/rest-index";
import { REFERENCE } from "./routes/openapi";

const SCRIPT_TYPE = "text/javascript; charset=utf-8";

/**
 * The page's policy. Scripts are this origin's files only. Scalar's bundle adds its stylesheets as
 * <style> elements at run time, which need the page's nonce (start.js hands it to each); a <style>
 * in markup (an HTML description in a document) gets none. It also sets `style` attributes, hence
 * 'unsafe-inline' for attributes alone. Its images are data: URLs (icons in its CSS). Only this
 * origin is reached: the OpenAPI document and whatever the reader sends with the try-it client.
 */
export const referenceCsp = (nonce?: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${nonce === undefined ? "" : ` 'nonce-${nonce}'`}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

/**
 * Scalar's configuration. Its defaults reach its own servers: fonts from its font host, telemetry,
 * an AI agent, MCP tools and its hosted client; all are off here (the CSP would refuse the first
 * four anyway, and report each). The try-it client in the page stays.
 */
const CONFIGURATION = {
  url: `/wp-json/${NAMESPACE}/openapi.json`,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  // A link to Scalar's hosted client, which would read the document from there.
  hideClientButton: true,
};

/**
 * Runs before the renderer's bundle. zod inside it probes `Function("")` to decide whether to
 * compile its parsers, which the CSP refuses (no 'unsafe-eval') and the browser reports as a
 * violation; zod's shared global configuration turns the probe off. Scalar gives the page's nonce
 * to its main stylesheet but not to two others (its toasts' and its theme's), so every <style> a
 * script creates gets it here. The renderer starts once both scripts have run.
 */
const START = `globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true };
const nonce = document.querySelector("meta[property=csp-nonce]").content;
const createElement = document.createElement.bind(document);
document.createElement = (name, options) => {
  const element = createElement(name, options);
  if (String(name).toLowerCase() === "style") element.nonce = nonce;
  return element;
};
document.addEventListener("DOMContentLoaded", () => {
  Scalar.createApiReference("#app", ${JSON.stringify(CONFIGURATION)});
});
`;

function freshNonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

export const reference = new Hono<AppEnv>()
  .get("/", (c) => {
    const nonce = freshNonce();
    c.header("Content-Security-Policy", referenceCsp(nonce));
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
    return c.html(
      html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta property="csp-nonce" content="${nonce}" />
    <title>Wallet ledger API</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="${REFERENCE}/start.js"></script>
    <script src="${REFERENCE}/scalar.js"></script>
  </body>
</html>
`,
    );
  })
  .get("/start.js", (c) => {
    c.header("Content-Security-Policy", referenceCsp());
    return c.body(START, 200, { "Content-Type": SCRIPT_TYPE });
  })
  // The bundle is 4.6 MiB: a browser keeps it and asks again with the asset's ETag (a 304 then).
  .get("/scalar.js", async (c) => {
    const url = new URL(`${REFERENCE}/scalar.js`, c.req.url);
    const asset = await c.env.ASSETS.fetch(new Request(url, { headers: c.req.raw.headers }));
    const res = new Response(asset.body, asset);
    res.headers.set("Content-Security-Policy", referenceCsp());
    res.headers.set("Cache-Control", "no-cache");
    if (asset.status === 200) res.headers.set("Content-Type", SCRIPT_TYPE);
    return res;
  });

// The interactive API reference (`GET /api-reference`): Swagger UI over this service's OpenAPI
// document, all of it from this Worker. The renderer runs same-origin with the operator console and
// sees any token typed into its Authorize dialog, so it is a pinned copy served from here
// (wrangler.toml [assets]), never a CDN's latest, and the page's CSP lets nothing from elsewhere
// run, load, or receive a request.
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "./env";
import { serviceNotConfigured } from "./http/errors";
import { logOnce } from "./http/log-once";
import { NAMESPACE } from "./http/rest-index";
import { ASSETS_EFFECT } from "./http/settings";
import { REFERENCE } from "./routes/openapi";
import { bindingProblem, bound } from "./settings";

const SCRIPT_TYPE = "text/javascript; charset=utf-8";

/**
 * The page's policy. Scripts and stylesheets are this origin's files only; Swagger UI sets its
 * inline styles through the DOM (element.style), which a CSP does not govern. Its images are data:
 * URLs (icons in its CSS). Only this origin is reached: the OpenAPI document and whatever the reader
 * sends with "Try it out".
 */
const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Swagger UI's configuration. Its one default that reaches elsewhere is the validator badge (an
 * image from validator.swagger.io, sent the document's URL): off. The bundle has no telemetry and
 * its stylesheet names no web font. It reads its configuration from nowhere else (no ?url= or
 * ?configUrl=) and keeps no credential in localStorage (persistAuthorization stays false).
 */
const CONFIGURATION = {
  url: `/wp-json/${NAMESPACE}/openapi.json`,
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  queryConfigEnabled: false,
  persistAuthorization: false,
};

/** Starts the renderer; the page loads it after the bundle, so the element and the bundle exist. */
const START = `window.ui = SwaggerUIBundle(${JSON.stringify(CONFIGURATION)});\n`;

/**
 * What ASSETS is told of the caller's request: revalidation, ranges and encodings. Not its
 * credentials or cookies, which the reference's files have no use for.
 */
const ASSET_REQUEST_HEADERS = [
  "accept-encoding",
  "if-match",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "if-unmodified-since",
  "range",
];

/** The renderer's files in assets/api-reference/ (scripts/reference-assets.ts), by name. */
const ASSET_TYPES = new Map([
  ["swagger-ui-bundle.js", SCRIPT_TYPE],
  ["swagger-ui.css", "text/css; charset=utf-8"],
]);

export const reference = new Hono<AppEnv>()
  .get("/", (c) => {
    c.header("Content-Security-Policy", REFERENCE_CSP);
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
    return c.html(
      html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Wallet ledger API</title>
    <link rel="stylesheet" href="${REFERENCE}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${REFERENCE}/swagger-ui-bundle.js"></script>
    <script src="${REFERENCE}/start.js"></script>
  </body>
</html>
`,
    );
  })
  .get("/start.js", (c) => {
    c.header("Content-Security-Policy", REFERENCE_CSP);
    return c.body(START, 200, { "Content-Type": SCRIPT_TYPE });
  })
  // The bundle is 1.7 MB: a browser keeps each file and asks again with the asset's ETag (a 304).
  .get("/:file{[\\w.-]+}", async (c) => {
    const file = c.req.param("file");
    const type = ASSET_TYPES.get(file);
    if (type === undefined) return c.notFound();
    // A deployment without wrangler.toml's [assets] block (or with ASSETS bound to something else):
    // the page's files alone cannot be served. Logged as http/settings.ts logs it, once.
    const assets = bound(c.env, "ASSETS");
    if (!assets) {
      const problem = bindingProblem(c.env, "ASSETS");
      logOnce(
        `setting ASSETS ${problem}`,
        { request_id: c.var.requestId ?? null, setting: "ASSETS", problem, effect: ASSETS_EFFECT },
        "error",
      );
      throw serviceNotConfigured(["ASSETS"]);
    }
    const url = new URL(`${REFERENCE}/${file}`, c.req.url);
    const headers = new Headers();
    for (const name of ASSET_REQUEST_HEADERS) {
      const value = c.req.header(name);
      if (value !== undefined) headers.set(name, value);
    }
    const asset = await assets.fetch(new Request(url, { headers }));
    const res = new Response(asset.body, asset);
    res.headers.set("Content-Security-Policy", REFERENCE_CSP);
    res.headers.set("Cache-Control", "no-cache");
    if (asset.status === 200) res.headers.set("Content-Type", type);
    return res;
  });

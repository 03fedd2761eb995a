// Import rules (docs/architecture.md): imports run down the layers, never up or around.
//   the app (index.ts, app.ts, route-methods.ts, discovery.ts)
//   dialects: routes/ (wallet/v1), compat/ (the plugin's), console/ — none imports another
//   http/ (envelopes, parameters, errors, the Authorization header)
//   wallet/ (the service: one function per operation, no HTTP; dialects and http/ import db/ and
//   ledger/ for types only, and their pure rules through wallet/rules.ts)
//   ledger/, auth/, throttle/, mail/, events/ (money rules, credentials, sign-in and mail limits,
//   mail, the outbox's records and webhook delivery)
//   db/ (schema and queries)
// `npm run lint` runs this (npm run lint:layers); a new upward import or cycle fails it.
const DIALECTS = "^src/(routes|compat|console)/";
const APP = "^src/(index|app|route-methods|discovery)\\.ts$";
const BELOW_HTTP = "^src/(wallet|ledger|auth|throttle|mail|events|db)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "Modules that import each other (type imports too) cannot be read or moved apart.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "app-on-top",
      comment: "Only the entry imports the app; nothing imports the entry.",
      severity: "error",
      from: { path: "^src/", pathNot: APP },
      to: { path: APP },
    },
    {
      name: "dialects-apart",
      comment:
        "A dialect decodes, calls the service, encodes: it never borrows another dialect's code.",
      severity: "error",
      from: { path: "^src/(routes|compat|console)/" },
      to: { path: DIALECTS, pathNot: "^src/$1/" },
    },
    {
      name: "dialects-through-the-service",
      comment:
        "Dialects and http/ reach queries and ledger rules through the service (wallet/): types only.",
      severity: "error",
      from: { path: "^src/(routes|compat|console|http)/" },
      to: { path: "^src/(db|ledger)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "http-below-dialects",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: DIALECTS },
    },
    {
      name: "service-knows-no-http",
      comment: "The service and the rules under it take values, never a request or a Context.",
      severity: "error",
      from: { path: BELOW_HTTP },
      to: { path: `${DIALECTS}|^src/http/|${APP}` },
    },
    {
      name: "service-knows-no-hono",
      comment: "Framework-free below http/ (auth/ may use hono/jwt, a JWT library).",
      severity: "error",
      from: { path: BELOW_HTTP },
      to: { path: "(^|node_modules/)hono(/|$)", pathNot: "jwt" },
    },
    {
      name: "rules-below-service",
      severity: "error",
      from: { path: "^src/(ledger|auth|throttle|mail|events|db)/" },
      to: { path: "^src/wallet/" },
    },
    {
      name: "auth-and-db-apart",
      comment:
        "Credentials do not query; queries do not know credentials (the service joins them).",
      severity: "error",
      from: { path: "^src/(auth|db)/" },
      to: { path: "^src/(auth|db)/", pathNot: "^src/$1/" },
    },
    {
      name: "db-at-the-bottom",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/(ledger|throttle|mail|events|wallet)/" },
    },
    {
      name: "env-imports-types-only",
      comment: "env.ts names types; it must not pull code (or a cycle) into every module.",
      severity: "error",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^src/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "parameters-through-the-route",
      comment:
        "A route's parameters are read by its declared input (http/route.ts), never by its handler.",
      severity: "error",
      from: { path: DIALECTS },
      to: { path: "^src/http/params\\.ts$", dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "\\.d\\.ts$" },
  },
};

import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import { BOOKMARK_HEADER } from "../http/answer-headers";
import { ERRORS, type ErrorCode } from "../http/errors";
import { NAMESPACE, pathNames } from "../http/rest-index";
import { needsSettings, type DocumentedInfo as RouteInfo } from "../http/route";

const envelopeA = {
  type: "object",
  required: ["status_code", "status", "message"],
  properties: {
    status_code: { type: "integer" },
    status: { type: "boolean" },
    message: { type: "string" },
    data: {},
    error: {},
  },
};
const envelopeB = {
  type: "object",
  required: ["status_code", "status", "message", "data", "error"],
  properties: {
    status_code: { type: "integer" },
    status: { oneOf: [{ const: true }, { const: "failed" }] },
    message: { type: "string" },
    data: {},
    error: {},
  },
};

const BOOKMARK_TEXT =
  "A bookmark from an earlier answer: the read sees at least that state (its own writes); `first-primary` asks for the newest. Optional (docs/scaling.md#read-replicas).";

/** Where the interactive reference (Swagger UI, over this document) is served. */
export const REFERENCE = "/api-reference";

const CREDENTIAL_ERRORS: ErrorCode[] = ["permission_missing", "credentials_invalid", "forbidden"];

/**
 * Every error answer a route can give, by catalogue code: its own refusals, the credential checks
 * when it needs credentials, a malformed request (in its envelope), a body too large on writes, the
 * money routes' rate limit, and a database that cannot take the request or a fault. A test probes
 * each route and finds every refusal it meets here.
 */
export function errorCodes(route: RouteInfo): ErrorCode[] {
  return [
    ...new Set<ErrorCode>([
      route.envelope === "B" ? "validation_error" : "invalid_input",
      ...(route.auth === "none" ? [] : CREDENTIAL_ERRORS),
      ...(route.errors ?? []),
      ...(route.method === "GET" ? [] : (["payload_too_large"] as const)),
      ...(needsSettings(route) ? (["service_not_configured"] as const) : []),
      ...(route.movesMoney ? (["rate_limited"] as const) : []),
      ...(route.envelope === "index" ? [] : (["database_unavailable"] as const)),
      "internal_error",
    ]),
  ];
}

function errorResponses(route: RouteInfo, envelope: { $ref: string }) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(route)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes
            .map((code) => `\`${code}\`: "${ERRORS[code].message}", error ${ERRORS[code].error}`)
            .join("; "),
          "x-error-codes": codes,
          content: { "application/json": { schema: envelope } },
        },
      ]),
  );
}

// Checks and transforms have no JSON Schema form; the types, patterns and limits carry over.
const jsonSchema = (schema: GenericSchema): Record<string, unknown> => {
  const { $schema: _, ...rest } = toJsonSchema(schema, { errorMode: "ignore" });
  return rest;
};

/** The success answer: the route's envelope with its `data` typed (or the bare body of an index). */
function successSchema(route: RouteInfo, envelope: { $ref: string }) {
  if (route.envelope === "index") return jsonSchema(route.data);
  return { allOf: [envelope, { type: "object", properties: { data: jsonSchema(route.data) } }] };
}

/** A route whose parameters take `format` (GET /statements) answers CSV too when asked. */
const answersCsv = (route: RouteInfo) => {
  const schema = route.params?.schema;
  return schema !== undefined && "entries" in schema && "format" in (schema.entries as object);
};

/**
 * A route's declared parameters split by where they are sent: its path's (by the `{name}`s of its
 * path; a name it does not declare is text), and the rest, in the query string or the body.
 */
function declaredParams(route: RouteInfo) {
  const declared = route.params?.schema ? jsonSchema(route.params.schema) : undefined;
  const properties = (declared?.properties ?? {}) as Record<string, unknown>;
  const inPath = pathNames(route.path);
  const path = inPath.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: properties[name] ?? { type: "string" },
  }));
  if (!declared || route.params?.pathOnly) return { path, rest: undefined };
  const rest: Record<string, unknown> = {
    ...declared,
    properties: Object.fromEntries(
      Object.entries(properties).filter(([name]) => !inPath.includes(name)),
    ),
  };
  if (Array.isArray(declared.required))
    rest.required = (declared.required as string[]).filter((name) => !inPath.includes(name));
  return { path, rest };
}

function operation(route: RouteInfo) {
  const { path, rest: schema } = declaredParams(route);
  const params = schema ?? {};
  const envelope = { $ref: `#/components/schemas/Envelope${route.envelope === "B" ? "B" : "A"}` };
  const inBody = route.method === "POST";
  return {
    summary: route.summary,
    security:
      route.auth === "none"
        ? []
        : route.auth === "session"
          ? [{ bearer: [] }]
          : [{ bearer: [] }, { apiKey: [] }],
    ...(inBody && schema
      ? { requestBody: { content: { "application/json": { schema: params } } } }
      : {}),
    parameters: [
      { $ref: "#/components/parameters/Bookmark" },
      ...path,
      ...(!inBody && schema
        ? Object.entries((params.properties ?? {}) as Record<string, unknown>).map(([name, s]) => ({
            name,
            in: "query",
            required: ((params.required ?? []) as string[]).includes(name),
            schema: s,
          }))
        : []),
    ],
    responses: {
      [String(route.success)]: {
        description: "Success",
        headers: { [BOOKMARK_HEADER]: { $ref: "#/components/headers/Bookmark" } },
        content: {
          "application/json": { schema: successSchema(route, envelope) },
          ...(answersCsv(route)
            ? {
                "text/csv": {
                  schema: { type: "string" },
                  description:
                    "With `format=csv`: RFC 4180, a header row, CRLF, as an attachment (Content-Disposition)",
                },
              }
            : {}),
        },
      },
      ...errorResponses(route, envelope),
    },
  };
}

/** The document of `routes`; its `servers` are the request's to fill (the site's own URL). */
export function openApiDocument(routes: readonly RouteInfo[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/wp-json/${NAMESPACE}${route.path}`;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Wallet ledger API", version: "1.0.0" },
    servers: [] as { url: string }[],
    paths,
    components: {
      schemas: { EnvelopeA: envelopeA, EnvelopeB: envelopeB },
      parameters: {
        Bookmark: {
          name: BOOKMARK_HEADER,
          in: "header",
          required: false,
          description: BOOKMARK_TEXT,
          schema: { type: "string" },
        },
      },
      headers: {
        Bookmark: {
          description:
            "The D1 session's bookmark after this request: send it back to read at least this state.",
          schema: { type: "string" },
        },
      },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "`Key base64(username:key)`",
        },
      },
    },
  };
}

import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { ALIAS_OF } from "../http/aliases";
import { BOOKMARK_HEADER, showsBookmark } from "../http/answer-headers";
import { ERRORS, type ErrorCode } from "../http/errors";
import { NAMESPACE, pathNames } from "../http/rest-index";
import { needsSettings, type DocumentedInfo as RouteInfo } from "../http/route";

// What every answer of a family has; each operation's success and refusal schemas add the rest
// (contract section 1): A's success has `data` and no `error`, its refusal `error` and no `data`.
const envelopeA = {
  type: "object",
  required: ["status_code", "status", "message"],
  properties: {
    status_code: { type: "integer" },
    status: { type: "boolean" },
    message: { type: "string" },
  },
};
// B (users, login): both keys always, the empty one `[]`, and a refusal's status "failed".
const envelopeB = {
  type: "object",
  required: [...envelopeA.required, "data", "error"],
  properties: { ...envelopeA.properties, status: { enum: [true, "failed"] }, data: {}, error: {} },
};
const EMPTY_LIST = { type: "array", maxItems: 0 };

/** Where the interactive reference (Swagger UI, over this document) is served. */
export const REFERENCE = "/api-reference";

const CREDENTIAL_ERRORS: ErrorCode[] = ["permission_missing", "credentials_invalid", "forbidden"];

/**
 * The credential refusals of a route: none on a public one; no `forbidden` on one any signed-in
 * caller may call (`session`: logout, where a key is refused by the route, not by its scope).
 */
const credentialErrors = (route: RouteInfo): ErrorCode[] =>
  route.auth === "none"
    ? []
    : route.auth === "session"
      ? CREDENTIAL_ERRORS.filter((code) => code !== "forbidden")
      : CREDENTIAL_ERRORS;

/**
 * Every error answer a route can give, by catalogue code: its own refusals, the credential checks
 * when it needs credentials, a malformed request (in its envelope), a body too large (on a GET too:
 * its JSON body is read, as WordPress reads one), the money routes' rate limit, and a database that
 * cannot take the request or a fault. A test probes each route and finds every refusal it meets here.
 */
export function errorCodes(route: RouteInfo): ErrorCode[] {
  return [
    ...new Set<ErrorCode>([
      route.envelope === "B" ? "validation_error" : "invalid_input",
      ...credentialErrors(route),
      ...(route.errors ?? []),
      "payload_too_large",
      ...(needsSettings(route) ? (["service_not_configured"] as const) : []),
      ...(route.movesMoney ? (["rate_limited"] as const) : []),
      ...(route.envelope === "index" ? [] : (["database_unavailable"] as const)),
      "internal_error",
    ]),
  ];
}

/** Refusals the app gives before a route's envelope is chosen, or after it failed: always in A. */
const ALWAYS_A: ErrorCode[] = ["payload_too_large", "internal_error"];

/** Schemas the operations share or name (refusals, request bodies), added to `components`. */
type Named = Map<string, unknown>;

/**
 * A refusal of one code, named in `components` (`Refusal.<code>`, `RefusalB.<code>`): `status`
 * false (A) or "failed" (B, whose `data` is then `[]`) and the code's `message`. The code itself
 * never goes on the wire; the message tells the refusals of one status apart.
 */
function refusalRef(family: "A" | "B", code: ErrorCode, refusals: Named) {
  const { status, message, error } = ERRORS[code];
  return named(`Refusal${family === "A" ? "" : "B"}.${code}`, refusals, {
    title: code,
    // The envelope's keys and no other (no `data` in A's refusal): what `allOf` names, exactly.
    unevaluatedProperties: false,
    allOf: [
      { $ref: `#/components/schemas/Envelope${family}` },
      {
        type: "object",
        required: ["status_code", "status", "message", "error"],
        properties: {
          status_code: { const: status },
          status: { const: family === "A" ? false : "failed" },
          message: { const: message },
          ...(family === "B" ? { data: EMPTY_LIST } : {}),
          error: { description: error },
        },
      },
    ],
  });
}

/**
 * WordPress's own answer to a body that claims JSON and does not parse, on any route that reads
 * its request (contract section 1): not in the route's envelope, since the plugin's code never ran.
 */
const INVALID_JSON = {
  type: "object",
  required: ["code", "message", "data"],
  properties: {
    code: { const: "rest_invalid_json" },
    message: { const: "Invalid JSON body passed." },
    data: { type: "object", required: ["status"], properties: { status: { const: 400 } } },
  },
};

const BOOKMARK_REF = { $ref: "#/components/headers/Bookmark" };

/** The refusals that tell the client when to try again, as the catalogue marks them. */
const RETRIED = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => "retryAfter" in ERRORS[code]);

/** `Retry-After` on a status some of whose refusals send it: required when all of them do. */
const retryAfter = (codes: ErrorCode[]) => ({
  description: "Seconds to wait before trying again",
  required: codes.every((code) => RETRIED.includes(code)),
  schema: { type: "integer", minimum: 1 },
});

function errorResponses(route: RouteInfo, refusals: Named) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(route)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => {
        const refs = codes.map((code) =>
          refusalRef(
            route.envelope === "B" && !ALWAYS_A.includes(code) ? "B" : "A",
            code,
            refusals,
          ),
        );
        if (status === 400)
          refs.push({ $ref: "#/components/schemas/WordPressError.rest_invalid_json" });
        const headers = {
          ...(route.auth !== "none" && showsBookmark(status, true)
            ? { [BOOKMARK_HEADER]: BOOKMARK_REF }
            : {}),
          ...(codes.some((code) => RETRIED.includes(code))
            ? { "Retry-After": retryAfter(codes) }
            : {}),
        };
        return [
          String(status),
          {
            description: codes.map((code) => `\`${code}\`: "${ERRORS[code].message}"`).join("; "),
            "x-error-codes": codes,
            ...(Object.keys(headers).length > 0 ? { headers } : {}),
            content: {
              "application/json": { schema: refs.length === 1 ? refs[0] : { anyOf: refs } },
            },
          },
        ];
      }),
  );
}

/**
 * A valibot schema as JSON Schema: the types, patterns and limits carry over, and a field that says
 * how it is `documented` (http/fields.ts) stands as it says, since checks and transforms have no
 * JSON Schema form.
 */
const jsonSchema = (schema: v.GenericSchema): Record<string, unknown> => {
  const { $schema: _, ...rest } = toJsonSchema(schema, {
    errorMode: "ignore",
    overrideAction: ({ valibotAction }) =>
      "metadata" in valibotAction
        ? (valibotAction.metadata as { documented?: JsonSchema }).documented
        : undefined,
  });
  return rest;
};

type Json = Record<string, unknown>;

/**
 * The declared parameters' JSON Schema. A field is required when leaving it out is refused, which
 * a default can be too: a credit's missing `user_id` counts as 0, which no user has, so a client
 * must send it (and the default is not one). An integer's default written as the text a query
 * string sends (`per_page` "100") is documented as the integer.
 */
function paramsSchema(route: RouteInfo) {
  const schema = route.params?.schema as v.ObjectSchema<v.ObjectEntries, undefined> | undefined;
  if (!schema) return undefined;
  const declared = jsonSchema(schema);
  const fields = (declared.properties ?? {}) as Record<string, Json>;
  // A field an alias may stand for (`user_email`, signed in by `username`) is never required.
  const aliased = new Set(Object.values(fields).map((field) => field[ALIAS_OF]));
  const required = Object.keys(schema.entries).filter(
    (name) => !aliased.has(name) && !v.safeParse(schema.entries[name]!, undefined).success,
  );
  const properties = Object.fromEntries(
    Object.entries(fields).map(([name, field]) => {
      const { default: given, ...sent } = field;
      if (required.includes(name) || given === undefined) return [name, sent];
      return [name, { ...sent, default: field.type === "integer" ? Number(given) : given }];
    }),
  );
  return { ...declared, properties, required };
}

/** The success answer: `status` true and its `data` (or the bare body of an index). */
function successSchema(route: RouteInfo) {
  if (route.envelope === "index") return jsonSchema(route.data);
  return {
    // The envelope's keys and no other (no `error` in A's success).
    unevaluatedProperties: false,
    allOf: [
      { $ref: `#/components/schemas/Envelope${route.envelope}` },
      {
        type: "object",
        required: ["status_code", "status", "data"],
        properties: {
          status_code: { const: route.success },
          status: { const: true },
          data: jsonSchema(route.data),
          ...(route.envelope === "B" ? { error: EMPTY_LIST } : {}),
        },
      },
    ],
  };
}

/** What a paged list answers beside its page, as WordPress's lists do. */
const PAGING_HEADERS = ["X-WP-Total", "X-WP-TotalPages", "Link"] as const;

/** What a statement's CSV answer carries beside its rows (http/statement-csv.ts): its figures. */
const CSV_HEADERS = {
  "Content-Disposition": {
    description:
      'With `format=csv`: `attachment; filename="statement-<user_id>-<wallet_id>-<from>-to-<to>.csv"`',
    schema: { type: "string" },
  },
  ...Object.fromEntries(
    (
      [
        ["Opening-Balance", "opening balance"],
        ["Closing-Balance", "closing balance"],
        ["Total-In", "total of its credits"],
        ["Total-Out", "total of its debits"],
      ] as const
    ).map(([name, what]) => [
      `X-Statement-${name}`,
      {
        description: `With \`format=csv\`: the statement's ${what}, an exact decimal with every place the wallet stores`,
        schema: { type: "string", pattern: "^-?[0-9]+(\\.[0-9]+)?$" },
      },
    ]),
  ),
};

/**
 * The headers of a success: the bookmark where credentials were read, a list's paging, and a
 * statement's figures when it answers CSV.
 */
function successHeaders(route: RouteInfo, declared: Json | undefined) {
  const paged = declared !== undefined && "per_page" in (declared.properties as Json);
  const headers = {
    ...(route.auth === "none" ? {} : { [BOOKMARK_HEADER]: BOOKMARK_REF }),
    ...(paged
      ? Object.fromEntries(
          PAGING_HEADERS.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
        )
      : {}),
    ...(answersCsv(route) ? CSV_HEADERS : {}),
  };
  return Object.keys(headers).length > 0 ? { headers } : {};
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
  const declared = paramsSchema(route);
  const properties = (declared?.properties ?? {}) as Record<string, unknown>;
  const inPath = pathNames(route.path);
  const path = inPath.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: properties[name] ?? { type: "string" },
  }));
  if (!declared || route.params?.pathOnly) return { path, rest: undefined };
  const rest = {
    ...declared,
    properties: Object.fromEntries(
      Object.entries(properties).filter(([name]) => !inPath.includes(name)),
    ),
    required: declared.required.filter((name) => !inPath.includes(name)),
  };
  return { path, rest };
}

/** `createCredit` as a type's name: `CreateCredit`. */
const pascal = (route: RouteInfo) =>
  route.operationId.replace(/^./, (first) => first.toUpperCase());

/** `schema` named in `components` (a refusal, a request body), and a reference to it. */
function named(name: string, schemas: Named, schema: unknown) {
  schemas.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

// WordPress reads a JSON body, a form or a multipart form alike (http/params.ts).
const BODY_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"];

function operation(route: RouteInfo, refusals: Named) {
  const { path, rest: schema } = declaredParams(route);
  const inBody = route.method === "POST";
  const csv = answersCsv(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    security:
      route.auth === "none"
        ? []
        : route.auth === "session"
          ? [{ bearer: [] }]
          : [{ bearer: [] }, { apiKey: [] }],
    ...(inBody && schema
      ? {
          requestBody: {
            required: schema.required.length > 0,
            content: Object.fromEntries(
              BODY_TYPES.map((type) => [
                type,
                { schema: named(`${pascal(route)}Input`, refusals, schema) },
              ]),
            ),
          },
        }
      : {}),
    parameters: [
      { $ref: "#/components/parameters/Bookmark" },
      ...path,
      ...(!inBody && schema
        ? Object.entries(schema.properties).map(([name, s]) => ({
            name,
            in: "query",
            required: schema.required.includes(name),
            schema: s,
          }))
        : []),
    ],
    responses: {
      [String(route.success)]: {
        description: csv
          ? "Success; with `format=csv` the statement as RFC 4180 text (a header row, CRLF), as an attachment (Content-Disposition), its figures in the X-Statement-* headers"
          : "Success",
        ...successHeaders(route, schema),
        content: {
          "application/json": { schema: successSchema(route) },
          ...(csv ? { "text/csv": { schema: { type: "string" } } } : {}),
        },
      },
      ...errorResponses(route, refusals),
    },
  };
}

/** The document of `routes`; its `servers` are the request's to fill (the site's own URL). */
export function openApiDocument(routes: readonly RouteInfo[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Named = new Map();
  for (const route of routes) {
    const path = `/wp-json/${NAMESPACE}${route.path}`;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, schemas);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Wallet ledger API",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [] as { url: string }[],
    paths,
    components: {
      schemas: {
        EnvelopeA: envelopeA,
        EnvelopeB: envelopeB,
        "WordPressError.rest_invalid_json": INVALID_JSON,
        ...Object.fromEntries([...schemas].sort(([a], [b]) => a.localeCompare(b))),
      },
      parameters: {
        Bookmark: {
          name: BOOKMARK_HEADER,
          in: "header",
          required: false,
          description:
            "A bookmark from an earlier answer: the read sees at least that state (its own writes); `first-primary` asks for the newest. Optional (docs/scaling.md#read-replicas).",
          schema: { type: "string" },
        },
      },
      headers: {
        Bookmark: {
          description:
            "The D1 session's bookmark after this request: send it back to read at least this state.",
          schema: { type: "string" },
        },
        "X-WP-Total": {
          description: "How many items the list holds",
          required: true,
          schema: { type: "integer" },
        },
        "X-WP-TotalPages": {
          description:
            "How many pages of `per_page` the list holds; 1 (0 when empty) where the whole list is answered: `/transactions` without paging, a CSV statement",
          required: true,
          schema: { type: "integer" },
        },
        Link: {
          description:
            'The previous and next pages (`rel="prev"`, `rel="next"`) where there are, then the API\'s discovery link (`rel="https://api.w.org/"`)',
          required: true,
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

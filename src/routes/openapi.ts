import { toJsonSchema } from "@valibot/to-json-schema";
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { authenticate } from "../http/auth";
import { send } from "../http/envelope";
import { NAMESPACE, ROUTES, type RouteInfo } from "./catalog";

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

function operation(route: RouteInfo) {
  // Checks and transforms have no JSON Schema form; the types, patterns and limits carry over.
  const schema = route.params ? toJsonSchema(route.params, { errorMode: "ignore" }) : undefined;
  const { $schema: _, ...params } = (schema ?? {}) as Record<string, unknown>;
  const envelope = { $ref: `#/components/schemas/Envelope${route.envelope === "B" ? "B" : "A"}` };
  const inBody = route.method === "POST";
  return {
    summary: route.summary,
    security: route.auth === "none" ? [] : [{ bearer: [] }, { apiKey: [] }],
    ...(inBody && schema
      ? { requestBody: { content: { "application/json": { schema: params } } } }
      : {}),
    parameters: [
      ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
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
        content: { "application/json": { schema: envelope } },
      },
    },
  };
}

export function openApiDocument(serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const path = `/wp-json/${NAMESPACE}${route.path}`;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Wallet ledger API", version: "1.0.0" },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { EnvelopeA: envelopeA, EnvelopeB: envelopeB },
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

export const openapi = new Hono<AppEnv>().get("/", authenticate, (c) =>
  send(c, 200, openApiDocument(c.env.SITE_URL.replace(/\/+$/, ""))),
);

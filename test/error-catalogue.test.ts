// The error catalogue (src/http/errors.ts) is the one place an error answer is defined: every refusal
// a route gives is one of the codes its OpenAPI operation lists, and docs/errors.md lists them all.
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import errorsDoc from "../docs/errors.md?raw";
import { BOOKMARK_HEADER } from "../src/http/answer-headers";
import { ERRORS, type ErrorCode } from "../src/http/errors";
import type { DocumentedInfo as RouteInfo } from "../src/http/route";
import { checkFields } from "../src/http/validation";
import { readAmount } from "../src/ledger/money";
import { NAMESPACE, ROUTES } from "../src/routes";
import { errorCodes, openApiDocument } from "../src/routes/openapi";
import {
  call,
  makeAdmin,
  makeUser,
  makeWallet,
  NO_ROUTE,
  type Reply,
  type TestUser,
} from "./helpers";

const codesOf = (route: RouteInfo) => new Set<ErrorCode>(errorCodes(route));

type Response = {
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, unknown>;
};
type Operation = { responses: Record<string, Response & Record<string, unknown>> };
const DOC = openApiDocument(ROUTES) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; headers: Record<string, { required?: true }> };
};
const operationOf = (route: RouteInfo) =>
  DOC.paths[`/wp-json/${NAMESPACE}${route.path}`]![route.method.toLowerCase()]!;

const resolvable = (value: unknown) =>
  JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));
const DEFS = resolvable(DOC.components.schemas);
const validators = new Map<unknown, Validator>();

/** One of the document's schemas, with the components it names beside it as `$defs`; made once. */
function validatorOf(schema: unknown) {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator({ ...resolvable(schema), $defs: DEFS }, "2020-12", false);
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * An answer as the route's operation documents it: a status it lists, a JSON body its schema for
 * that status takes, the headers it requires, and the bookmark on no answer that does not declare it.
 */
function expectDocumented(route: RouteInfo, res: Reply, what: string) {
  const response = operationOf(route).responses[String(res.status)];
  expect(response, `${what}: ${res.status} is not documented`).toBeDefined();
  if (!res.headers.get("Content-Type")?.startsWith("text/csv")) {
    const schema = response!.content?.["application/json"]?.schema;
    const { valid, errors } = validatorOf(schema).validate(res.body);
    expect(valid, `${what}: ${res.text} ${JSON.stringify(errors.slice(-3))}`).toBe(true);
  }
  const declared = Object.entries(response!.headers ?? {}) as [
    string,
    { $ref?: string; required?: boolean },
  ][];
  for (const [header, spec] of declared) {
    const { required } = spec.$ref ? DOC.components.headers[spec.$ref.split("/").at(-1)!]! : spec;
    if (required) expect(res.headers.has(header), `${what}: ${header}`).toBe(true);
  }
  if (!declared.some(([header]) => header === BOOKMARK_HEADER))
    expect(res.headers.has(BOOKMARK_HEADER), `${what}: ${BOOKMARK_HEADER}`).toBe(false);
}

/** The catalogue codes an error answer can be: same status, same message. */
const matching = (res: Reply) =>
  (Object.keys(ERRORS) as ErrorCode[]).filter(
    (code) => ERRORS[code].status === res.status && ERRORS[code].message === res.body?.message,
  );

/**
 * Values each field is tried with, one field at a time: wrong types, edges, and nonsense (an object
 * that looks like a list, too).
 */
const ODD_VALUES: unknown[] = [
  "",
  "x",
  -1,
  1e30,
  "0.001",
  [],
  ["yes"],
  {},
  { length: 1 },
  true,
  null,
];

/** Valibot's own messages ("Invalid type: Expected string but received Array"): never on the wire. */
const LIBRARY_MESSAGE = /"Invalid (type|key|length|format|value|entries|item)/;

function probes(route: RouteInfo, ids: { user: number; wallet: string }) {
  const paths = route.path.includes("{")
    ? ["999999999", "abc", String(ids.user)].map((id) => route.path.replace(/\{\w+\}/, id))
    : [route.path];
  // The route's own fields when its schema names them.
  const entries = (route.params?.schema as { entries?: Record<string, unknown> } | undefined)
    ?.entries;
  const fields = Object.keys(entries ?? { user_id: 0, wallet_id: 0, amount: 0 });
  const valid = { user_id: ids.user, wallet_id: ids.wallet, amount: "1.00", request_id: "r-1" };
  const bodies: Record<string, unknown>[] = [{}, valid];
  for (const field of fields)
    for (const value of ODD_VALUES) bodies.push({ ...valid, [field]: value });
  // A statement answers CSV too: its headers are documented as the JSON answer's are.
  if (fields.includes("format")) bodies.push({ ...valid, format: "csv" });
  return { paths, valid, bodies };
}

describe("the error catalogue", () => {
  it("has one documented row per code in docs/errors.md, with its status and message", () => {
    for (const [code, e] of Object.entries(ERRORS))
      expect(errorsDoc, code).toContain(`| \`${code}\` | ${e.status} | \`"${e.message}"\` |`);
  });

  it("names in each code's row of docs/errors.md every route that refuses with it", () => {
    const cellOf = (code: string) =>
      errorsDoc
        .split("\n")
        .find((line) => line.startsWith(`| \`${code}\` |`))!
        .split(" | ")
        .at(-1)!;
    /** The routes a cell names, whole (`GET /wallets/{wallet_id}` is not in `…/summary`). */
    const named = (cell: string) =>
      new Set([...cell.matchAll(/\b(GET|POST|DELETE) (\/[^\s,;()`]*)/g)].map((m) => m[0]));
    const missing = ROUTES.flatMap((route) =>
      [...codesOf(route)]
        .filter((code) => {
          const cell = cellOf(code);
          if (cell.startsWith("every route (see below)")) return false;
          // Every route of an envelope refuses an unreadable request with these; the row names
          // the routes that declare them for their own fields.
          if (cell.startsWith("every route answering in envelope"))
            return route.errors?.includes(code) ?? false;
          return true;
        })
        .filter((code) => !named(cellOf(code)).has(`${route.method} ${route.path}`))
        .map((code) => `${code}: ${route.method} ${route.path}`),
    );
    expect(missing).toEqual([]);
  });

  it("is what each OpenAPI operation lists under its error statuses", () => {
    const doc = openApiDocument(ROUTES) as {
      paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
    };
    for (const route of ROUTES) {
      const op = doc.paths[`/wp-json/${NAMESPACE}${route.path}`]![route.method.toLowerCase()]!;
      const listed = Object.entries(op.responses).flatMap(([status, r]) =>
        ((r["x-error-codes"] ?? []) as ErrorCode[]).map((code) => {
          expect(String(ERRORS[code].status), `${route.method} ${route.path} ${code}`).toBe(status);
          return code;
        }),
      );
      expect(new Set(listed)).toEqual(codesOf(route));
    }
  });

  it("refuses every field in its own words, never a validation library's default message", () => {
    // Also a GET's fields: WordPress reads a JSON body on a GET too, so any of them can be a list
    // or an object (a test's Request cannot carry a body on a GET, so the schemas are asked here).
    const valid = { user_id: 2, wallet_id: "ngn", amount: "1.00", request_id: "r-1" };
    for (const route of ROUTES) {
      const schema = route.params?.schema as Parameters<typeof checkFields>[0] | undefined;
      for (const field of Object.keys(schema?.entries ?? {}))
        for (const value of ODD_VALUES) {
          const refusal = checkFields(schema!, { ...valid, [field]: value }).errors?.[field];
          expect(
            `"${refusal}"`,
            `${route.method} ${route.path} ${field}=${JSON.stringify(value)}`,
          ).not.toMatch(LIBRARY_MESSAGE);
        }
    }
  });

  it("takes every value up to the bounds each field documents, and refuses the first past them", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const valid = { user_id: admin.id, wallet_id: wallet, amount: "1.00", request_id: "r-1" };
    type Field = { minimum?: number; maximum?: number; maxLength?: number; "x-alias-of"?: string };
    const mismatches: string[] = [];
    for (const route of ROUTES.filter((r) => r.envelope === "A")) {
      const op = operationOf(route) as Operation & {
        parameters?: { name: string; in: string; $ref?: string; schema: Field }[];
        requestBody?: { content: Record<string, { schema: { $ref: string } }> };
      };
      const body = op.requestBody?.content["application/json"]?.schema.$ref.split("/").at(-1);
      const fields: [string, Field][] = body
        ? Object.entries(
            (DOC.components.schemas[body] as { properties: Record<string, Field> }).properties,
          )
        : (op.parameters ?? []).filter((p) => p.in === "query").map((p) => [p.name, p.schema]);
      for (const [name, field] of fields) {
        const tries: [unknown, boolean][] = [];
        if (field.minimum !== undefined && field.maximum !== undefined)
          tries.push([field.minimum, true], [field.maximum, true], [field.maximum + 1, false]);
        if (field.minimum !== undefined && field.minimum > 0)
          tries.push([field.minimum - 1, false]);
        if (field.maxLength !== undefined)
          tries.push(["a".repeat(field.maxLength), true], ["a".repeat(field.maxLength + 1), false]);
        const key = field["x-alias-of"] ?? name;
        for (const [value, taken] of tries) {
          const params = { ...valid, [name]: value };
          const res =
            route.method === "GET"
              ? await call("GET", route.path.replace(/\{\w+\}/g, "1"), {
                  auth: admin.bearer,
                  query: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])),
                })
              : await call(route.method, route.path.replace(/\{\w+\}/g, "1"), {
                  auth: admin.bearer,
                  body: params,
                });
          const refused = res.status === 400 && res.body.error?.[key] !== undefined;
          if (refused === taken)
            mismatches.push(
              `${route.method} ${route.path} ${name}=${String(value).slice(0, 12)}: ${res.text}`,
            );
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("documents an amount as the server reads one: above zero, as text too", () => {
    const schemas = DOC.components.schemas as Record<string, { properties: { amount: unknown } }>;
    const texts = ["0", "00", "0.0", "0.00", "000.000", "1", "10", "0.5", "0.05", "00012.50"];
    for (const input of ["CreateCreditInput", "PlaceHoldInput", "CaptureHoldInput"]) {
      const amount = validatorOf(schemas[input]!.properties.amount);
      for (const text of texts)
        expect(amount.validate(text).valid, `${input} "${text}"`).toBe(
          typeof readAmount(text) !== "string",
        );
    }
  });

  describe("every refusal a route gives is one its operation lists", () => {
    let ctx: { admin: TestUser; subscriber: TestUser; wallet: string };
    it.each(ROUTES.filter((r) => r.auth !== "none" || r.method === "POST"))(
      "$method $path",
      async (route) => {
        ctx ??= await (async () => {
          const admin = await makeAdmin();
          return { admin, subscriber: await makeUser(), wallet: await makeWallet(admin) };
        })();
        const listed = codesOf(route);
        const seen = new Set<string>();
        const check = (res: Reply, what: string) => {
          expect(res.status, what).toBeLessThan(500);
          expect(res.text, what).not.toMatch(LIBRARY_MESSAGE);
          // A record's id that is not digits matches no route: WordPress's own 404 (docs/api.md).
          if (/\{(id|user_id)\}/.test(route.path) && what.includes("/abc")) {
            expect(res.body, what).toEqual(NO_ROUTE);
            return;
          }
          expectDocumented(route, res, what);
          if (res.status < 400) return;
          if (res.body?.code === "rest_invalid_json") return;
          const codes = matching(res);
          expect(
            codes.filter((c) => listed.has(c)),
            `${what}: ${res.status} ${res.text}`,
          ).not.toEqual([]);
          seen.add(`${res.status} ${res.body.message}`);
        };
        const ids = { user: ctx.subscriber.id, wallet: ctx.wallet };
        const send = (path: string, params: Record<string, unknown>, auth?: string) =>
          route.method === "GET"
            ? call("GET", path, {
                auth,
                query: Object.fromEntries(
                  Object.entries(params).map(([k, v]) => [k, String(v as string)]),
                ),
              })
            : call(route.method, path, { auth, body: params });
        const { paths, valid, bodies } = probes(route, ids);
        for (const path of paths) {
          check(await send(path, valid), `no credentials, ${path}`);
          if (route.auth !== "none") {
            check(await send(path, valid, ctx.subscriber.bearer), `subscriber, ${path}`);
            check(await send(path, valid, "Bearer not.a.token"), `bad token, ${path}`);
          }
          for (const params of bodies)
            check(await send(path, params, ctx.admin.bearer), `${path} ${JSON.stringify(params)}`);
          // A GET's body is read too, but a test's Request cannot carry one.
          if (route.method !== "GET") {
            const broken = { "Content-Type": "application/json" };
            const res = await call(route.method, path, {
              auth: ctx.admin.bearer,
              headers: broken,
              body: "{",
            });
            check(res, `${path} with a body that is not JSON`);
          }
        }
        expect(seen.size).toBeGreaterThan(0);
      },
    );
  });
});

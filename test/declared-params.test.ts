// Every parameter a route reads is declared: its path's `{name}`s are entries of its declared input,
// and no handler in either dialect reads the request's path or query string itself. The console
// reads the ids in its paths through one helper (console/path-ids.tsx), by the routes' id rule, and
// its query parameters through another (console/query.ts), each page declaring the ones it takes.
import { describe, expect, it } from "vitest";
import { COMPAT_ROUTES } from "../src/compat";
import { pathNames } from "../src/http/rest-index";
import type { RouteInfo } from "../src/http/route";
import { ROUTES } from "../src/routes";
import { openApiDocument } from "../src/routes/openapi";

const SOURCES = import.meta.glob<string>("../src/{routes,compat}/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
});

const CONSOLE = import.meta.glob<string>("../src/console/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** Reads of the request's parameters that bypass the route's declared input. */
const RAW_READ = /\.req\s*\.\s*(param|query|queries)\s*\(|\bpathParam\s*\(/g;

/** The one read allowed: the plugin's mount checks the namespace segment, before any route. */
const ALLOWED = new Map([["../src/compat/index.ts", 1]]);

/**
 * A console page reading its path or query string itself, or narrowing a path parameter with a
 * pattern of its own.
 */
const CONSOLE_RAW_READ =
  /\.req\s*\.\s*(param|query|queries)\s*\(|\bpathParam\s*\(|["`][^"`]*\/:\w+\{/g;

/** The console's one reader of its paths (every id through pathIdField), and of its query. */
const CONSOLE_ALLOWED = new Map([
  ["../src/console/path-ids.tsx", 1],
  ["../src/console/query.ts", 1],
]);

const offenders = (sources: Record<string, string>, read: RegExp, allowed: Map<string, number>) =>
  Object.entries(sources).flatMap(([file, text]) => {
    const count = [...text.matchAll(read)].length;
    return count > (allowed.get(file) ?? 0) ? [file] : [];
  });

const declared = (route: RouteInfo) => {
  const schema = route.params?.schema as { entries?: object } | undefined;
  return Object.keys(schema?.entries ?? {});
};

describe("declared parameters", () => {
  it.each([...ROUTES, ...COMPAT_ROUTES].map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s declares each of its path's parameters in its input",
    (_, route) => {
      const names = pathNames(route.path);
      expect(declared(route)).toEqual(expect.arrayContaining(names));
    },
  );

  it("documents path parameters from the declarations: ids as integers, never in the body", () => {
    // biome-ignore lint/suspicious/noExplicitAny: a JSON document read by path
    const doc = openApiDocument(ROUTES) as any;
    const op = (path: string, method: string) => doc.paths[`/wp-json/wallet/v1${path}`][method];
    const reverse = op("/transactions/{id}/reverse", "post");
    expect(reverse.parameters[1]).toMatchObject({ name: "id", in: "path", required: true });
    expect(reverse.parameters[1].schema).toMatchObject({ type: "integer" });
    // Each body is a named schema (ReverseTransactionInput), shared by its media types.
    const body =
      doc.components.schemas[
        reverse.requestBody.content["application/json"].schema.$ref.split("/").pop()
      ];
    expect(Object.keys(body.properties)).toEqual(["request_id", "note"]);
    expect(body.required).not.toContain("id");
    expect(op("/wallets/{wallet_id}", "get").parameters[1].schema).toMatchObject({
      type: "string",
    });
    expect(op("/webhooks/{id}/test", "post").requestBody).toBeUndefined();
    expect(op("/holds/{id}/void", "post").requestBody).toBeDefined();
  });

  it("no file of a dialect's routes reads a path or query parameter itself", () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(40);
    expect(offenders(SOURCES, RAW_READ, ALLOWED)).toEqual([]);
  });

  it("no console page reads its path or query itself: path-ids.tsx and query.ts read them", () => {
    expect(Object.keys(CONSOLE).length).toBeGreaterThan(15);
    expect(offenders(CONSOLE, CONSOLE_RAW_READ, CONSOLE_ALLOWED)).toEqual([]);
    // The helper reads each id by the routes' rule, and the screens that name ids use it.
    expect(CONSOLE["../src/console/path-ids.tsx"]).toContain("pathIdField");
    const screens = Object.entries(CONSOLE).filter(([, text]) => /["`][^"`]*\/:\w+/.test(text));
    expect(screens.length).toBeGreaterThan(5);
    for (const [file, text] of screens) expect(text, file).toContain("withIds(");
  });
});

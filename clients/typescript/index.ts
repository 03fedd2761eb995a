// The TypeScript client of wallet/v1: openapi-fetch, typed by what openapi-typescript generates
// from clients/openapi.json (./openapi.d.ts, `npm run openapi`). Every operation is a named call
// (`wallet.createCredit({ body })`, by its operationId: ./operations.ts), and openapi-fetch's own
// `wallet.POST(path, init)` works too. Every call is typed by the document: its parameters and
// body (a wrong one does not compile), and its answer, `{ data }` (status true) on success or `{ error }` (status false, or
// "failed" for users and login) on a refusal; an answer that is not JSON (a proxy's error page, a
// body cut short) rejects with WalletTransportError, as a network failure rejects. It needs only
// `fetch`, so it runs in a Worker, in Node and in a browser.
import createClient, {
  type Client,
  type ClientForPath,
  type ClientOptions,
  type Middleware,
  wrapAsPathBasedClient,
} from "openapi-fetch";
import type { paths } from "./openapi";
import { OPERATIONS } from "./operations";

export type { components, operations, paths } from "./openapi";

type Operations = typeof OPERATIONS;

/** Each operation by its operationId: the call of its method on its path, typed alike. */
export type NamedCalls = {
  [Name in keyof Operations]: ClientForPath<
    paths[Operations[Name][1]],
    "application/json"
  >[Operations[Name][0]];
};

export type WalletClient = Client<paths, "application/json"> & NamedCalls;

/** An API key (docs/api.md#api-keys-administrator) or an access token from POST /users/login. */
export type Credentials = { username: string; key: string } | { token: string };

const base64 = (text: string) =>
  btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(""));

/** The `Authorization` header of `credentials`: `Key base64(username:key)` or `Bearer <token>`. */
export const authorization = (credentials: Credentials) =>
  "token" in credentials
    ? `Bearer ${credentials.token}`
    : `Key ${base64(`${credentials.username}:${credentials.key}`)}`;

/**
 * The service answered something that is not its JSON: a proxy's or CDN's error page, an empty
 * body, or one cut short. `status` is the HTTP status; `body` the first 200 characters.
 */
export class WalletTransportError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    options?: ErrorOptions,
  ) {
    super(`HTTP ${status}: not a wallet answer: ${body}`, options);
    this.name = "WalletTransportError";
  }
}

/**
 * Reads each answer parsed as JSON before openapi-fetch does, so one that is not a JSON object
 * (the envelope, or WordPress's `{ code, message, data }`) rejects: openapi-fetch would hand its
 * text over as `error`, an empty success as neither `data` nor `error`, or reject with a bare
 * SyntaxError.
 */
const jsonAnswers: Middleware = {
  async onResponse({ request, response, options }) {
    // A 204 or a HEAD has no body; a caller's own parseAs reads the body as it asked.
    if (options.parseAs !== "json" || request.method === "HEAD" || response.status === 204) return;
    const text = await response.text();
    let value: unknown;
    let cause: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      cause = error;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new WalletTransportError(response.status, text.slice(0, 200), { cause });
    }
    return new Response(text, response);
  },
};

export type WalletClientOptions = Omit<ClientOptions, "baseUrl" | "headers"> & {
  auth?: Credentials;
  headers?: Record<string, string>;
};

/**
 * A client of the service at `site`, its origin (`https://wallet.example.com`): paths are the
 * document's, `/wp-json/wallet/v1/...`.
 */
export function createWalletClient(site: string, options: WalletClientOptions = {}): WalletClient {
  const { auth, headers, ...rest } = options;
  const client = createClient<paths>({
    ...rest,
    baseUrl: site.replace(/\/+$/, ""),
    headers: {
      ...(auth ? { Authorization: authorization(auth) } : {}),
      ...headers,
    },
  });
  client.use(jsonAnswers);
  const byPath = wrapAsPathBasedClient(client);
  const named = Object.fromEntries(
    Object.entries(OPERATIONS).map(([name, [method, path]]) => {
      const call = byPath[path][method] as (...init: unknown[]) => unknown;
      return [name, (...init: unknown[]) => call(...init)];
    }),
  );
  return Object.assign(client, named as NamedCalls);
}

// The TypeScript client of wallet/v1: openapi-fetch, typed by what openapi-typescript generates
// from clients/openapi.json (./openapi.d.ts, `npm run openapi`). Every operation is a named call
// (`wallet.createCredit({ body })`, by its operationId: ./operations.ts), and openapi-fetch's own
// `wallet.POST(path, init)` works too. Every call is checked against the document: its parameters
// and body, and its answer, `{ data }` (status true) on success or `{ error }` (status false, or
// "failed" for users and login) on a refusal. It needs only `fetch`, so it runs in a Worker, in
// Node and in a browser.
import createClient, {
  type Client,
  type ClientForPath,
  type ClientOptions,
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

/** An API key (docs/api.md#api-keys) or an access token from POST /users/login. */
export type Credentials = { username: string; key: string } | { token: string };

const base64 = (text: string) =>
  btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(""));

/** The `Authorization` header of `credentials`: `Key base64(username:key)` or `Bearer <token>`. */
export const authorization = (credentials: Credentials) =>
  "token" in credentials
    ? `Bearer ${credentials.token}`
    : `Key ${base64(`${credentials.username}:${credentials.key}`)}`;

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
  const byPath = wrapAsPathBasedClient(client);
  const named = Object.fromEntries(
    Object.entries(OPERATIONS).map(([name, [method, path]]) => {
      const call = byPath[path][method] as (...init: unknown[]) => unknown;
      return [name, (...init: unknown[]) => call(...init)];
    }),
  );
  return Object.assign(client, named as NamedCalls);
}

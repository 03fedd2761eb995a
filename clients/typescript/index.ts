// The TypeScript client of wallet/v1: openapi-fetch, typed by what openapi-typescript generates
// from clients/openapi.json (./openapi.d.ts, `npm run openapi`). Every call is checked against the
// document: its path, parameters and body, and its answer, `{ data }` (status true) on success or
// `{ error }` (status false, or "failed" for users and login) on a refusal. It needs only `fetch`,
// so it runs in a Worker, in Node and in a browser.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./openapi";

export type { components, operations, paths } from "./openapi";

export type WalletClient = Client<paths, "application/json">;

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
  return createClient<paths>({
    ...rest,
    baseUrl: site.replace(/\/+$/, ""),
    headers: {
      ...(auth ? { Authorization: authorization(auth) } : {}),
      ...headers,
    },
  });
}

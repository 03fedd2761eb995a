import type * as v from "valibot";
import type { ErrorCode } from "../http/errors";
import { ApiKeyParams } from "./api-keys/schemas";
import { BalanceParams } from "./balances/schemas";
import { CreditParams } from "./credits/schemas";
import { DebitParams } from "./debits/schemas";
import { ReverseParams, TransactionListParams } from "./transactions/schemas";
import { TransferParams } from "./transfers/schemas";
import { LoginParams, UserParams } from "./users/schemas";
import { WalletParams } from "./wallets/schemas";

export const NAMESPACE = "wallet/v1";

export type RouteInfo = {
  path: string;
  method: "GET" | "POST" | "DELETE";
  summary: string;
  auth: "none" | "admin" | "reader";
  params?: v.GenericSchema;
  envelope: "A" | "B" | "index";
  success: number;
  /** What the route itself can refuse with; credentials, malformed requests and faults are added. */
  errors?: ErrorCode[];
};

/**
 * Every route of the namespace: the discovery index, `Allow` and the OpenAPI document (with each
 * route's error answers from the catalogue in http/errors.ts) are built from it.
 */
export const ROUTES: RouteInfo[] = [
  {
    path: "/credits",
    method: "POST",
    summary: "Credit a user's wallet, idempotent on request_id",
    auth: "admin",
    params: CreditParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "transaction_exists"],
    success: 200,
  },
  {
    path: "/debits",
    method: "POST",
    summary: "Debit a user's wallet; never below zero",
    auth: "admin",
    params: DebitParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    success: 200,
  },
  {
    path: "/transfers",
    method: "POST",
    summary: "Move money between two users atomically",
    auth: "admin",
    params: TransferParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    success: 200,
  },
  {
    path: "/user-wallet-balance",
    method: "GET",
    summary: "Balances of one or more wallets",
    auth: "reader",
    params: BalanceParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 200,
  },
  {
    path: "/transactions",
    method: "GET",
    summary: "A user's transactions as WordPress posts",
    auth: "reader",
    params: TransactionListParams,
    envelope: "A",
    errors: ["invalid_input", "security_failed", "user_not_found"],
    success: 200,
  },
  {
    path: "/transactions/{id}",
    method: "GET",
    summary: "One transaction as a WordPress post",
    auth: "reader",
    envelope: "A",
    errors: ["transaction_not_found"],
    success: 200,
  },
  {
    path: "/transactions/{id}/reverse",
    method: "POST",
    summary: "Reverse a transaction (a transfer as a whole)",
    auth: "admin",
    params: ReverseParams,
    envelope: "A",
    errors: [
      "invalid_input",
      "transaction_not_found",
      "insufficient_balance",
      "transaction_exists",
      "already_reversed",
    ],
    success: 200,
  },
  {
    path: "/users",
    method: "POST",
    summary: "Create a subscriber",
    auth: "admin",
    params: UserParams,
    envelope: "B",
    errors: ["validation_error"],
    success: 201,
  },
  {
    path: "/users/login",
    method: "POST",
    summary: "Sign in and get an access token",
    auth: "none",
    params: LoginParams,
    envelope: "B",
    errors: ["validation_error", "too_many_sign_ins"],
    success: 200,
  },
  {
    path: "/users/{user_id}/unlock",
    method: "POST",
    summary: "Clear an account's sign-in lock",
    auth: "admin",
    envelope: "B",
    errors: ["validation_error", "user_not_found"],
    success: 200,
  },
  {
    path: "/wallets",
    method: "POST",
    summary: "Create a wallet",
    auth: "admin",
    params: WalletParams,
    envelope: "A",
    errors: ["invalid_input", "wallet_exists"],
    success: 200,
  },
  {
    path: "/wallets",
    method: "GET",
    summary: "List wallets",
    auth: "admin",
    envelope: "A",
    success: 200,
  },
  {
    path: "/wallets/{wallet_id}",
    method: "GET",
    summary: "Read one wallet",
    auth: "admin",
    envelope: "A",
    errors: ["wallet_not_found"],
    success: 200,
  },
  {
    path: "/api-keys",
    method: "POST",
    summary: "Create an API key (the secret is shown once)",
    auth: "admin",
    params: ApiKeyParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 201,
  },
  {
    path: "/api-keys",
    method: "GET",
    summary: "List API keys",
    auth: "admin",
    envelope: "A",
    success: 200,
  },
  {
    path: "/api-keys/{id}",
    method: "DELETE",
    summary: "Revoke an API key",
    auth: "admin",
    envelope: "A",
    errors: ["invalid_input", "api_key_not_found"],
    success: 200,
  },
  {
    path: "/openapi.json",
    method: "GET",
    summary: "This API as OpenAPI 3.1",
    auth: "reader",
    envelope: "index",
    success: 200,
  },
];

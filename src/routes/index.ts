import { send } from "../http/envelope";
import { type DocumentedInfo, defineRoute, mountRoutes, type Route } from "../http/route";
import { siteUrl } from "../http/site";
import { OpenApiAnswer } from "./answers";
import { createApiKey } from "./api-keys/create";
import { deleteApiKey, getApiKeys } from "./api-keys/manage";
import { readAvailableBalances } from "./balances/available";
import { readBalance } from "./balances/read";
import { createBatch } from "./batches/create";
import { listBatchesRoute, readBatchRoute } from "./batches/read";
import { reverseBatchRoute } from "./batches/reverse";
import { createCredit, createDebit } from "./entries/create";
import { listEvents } from "./events/list";
import { captureHoldRoute } from "./holds/capture";
import { listHoldsRoute } from "./holds/list";
import { placeHoldRoute } from "./holds/place";
import { readHoldRoute } from "./holds/read";
import { voidHoldRoute } from "./holds/void";
import { openApiDocument } from "./openapi";
import { readStatementRoute } from "./statements/read";
import { listTransactions } from "./transactions/list";
import { readTransaction } from "./transactions/read";
import { reverseTransaction } from "./transactions/reverse";
import { createTransfer } from "./transfers/create";
import { createUser } from "./users/create";
import { login } from "./users/login";
import { logout } from "./users/logout";
import { confirmReset, requestReset } from "./users/password-reset";
import { revokeSessions } from "./users/revoke-sessions";
import { unlockUser } from "./users/unlock";
import { confirmEmailVerification, requestEmailVerification } from "./users/verify-email";
import { createWallet } from "./wallets/create";
import { getWallet, getWallets } from "./wallets/read";
import { readWalletSummary } from "./wallets/summary";
import { createWebhook } from "./webhooks/create";
import { getDeliveries, resendWebhook, testWebhook } from "./webhooks/deliveries";
import { deleteWebhook, getWebhooks } from "./webhooks/manage";

export { NAMESPACE } from "../http/rest-index";

const openApiRoute = defineRoute(
  {
    path: "/openapi.json",
    method: "GET",
    operationId: "readOpenApi",
    summary: "This API as OpenAPI 3.1",
    // Public, like the discovery index it details: it names routes and shapes, never data.
    auth: "none",
    envelope: "index",
    data: OpenApiAnswer,
  },
  (c) => {
    // Built once per isolate, on first use (ROUTES is declared below); only the server is the request's.
    openApi ??= openApiDocument(ROUTES);
    return send(c, 200, { ...openApi, servers: [{ url: siteUrl(c) }] });
  },
);
let openApi: ReturnType<typeof openApiDocument> | undefined;

/**
 * Every route of `wallet/v1`, each declared once beside its handler (src/routes/<resource>/): the
 * app mounts these, and the discovery index, `Allow` and the OpenAPI document read them.
 */
export const ROUTES: readonly Route<DocumentedInfo>[] = [
  createCredit,
  createDebit,
  createTransfer,
  readBalance,
  readAvailableBalances,
  placeHoldRoute,
  listHoldsRoute,
  readHoldRoute,
  captureHoldRoute,
  voidHoldRoute,
  listTransactions,
  readStatementRoute,
  readTransaction,
  reverseTransaction,
  createBatch,
  listBatchesRoute,
  readBatchRoute,
  reverseBatchRoute,
  createUser,
  login,
  logout,
  unlockUser,
  revokeSessions,
  requestEmailVerification,
  confirmEmailVerification,
  requestReset,
  confirmReset,
  createWallet,
  getWallets,
  getWallet,
  readWalletSummary,
  createApiKey,
  getApiKeys,
  deleteApiKey,
  listEvents,
  createWebhook,
  getWebhooks,
  deleteWebhook,
  testWebhook,
  resendWebhook,
  getDeliveries,
  openApiRoute,
];

export const api = mountRoutes(ROUTES);

// Compile-time checks of the generated TypeScript client (clients/typescript): `npm run typecheck`
// fails when a line marked `@ts-expect-error` compiles, or when an unmarked one does not. Never run.
import { createWalletClient } from "../clients/typescript";

const wallet = createWalletClient("http://127.0.0.1:8787", {
  auth: { username: "shop", key: "k" },
});
const CREDITS = "/wp-json/wallet/v1/credits";
const credit = { user_id: 7, wallet_id: "ngn", request_id: "order-1", amount: "12.50" };

export async function creditChecks() {
  // @ts-expect-error a credit without a body does not compile
  await wallet.POST(CREDITS);
  // @ts-expect-error nor with options but no body
  await wallet.POST(CREDITS, {});
  // @ts-expect-error nor without its amount
  await wallet.POST(CREDITS, { body: { user_id: 7, wallet_id: "ngn", request_id: "order-1" } });

  const { data, error } = await wallet.POST(CREDITS, { body: credit });
  if (data) {
    const ok: true = data.status;
    const transactionId: number = data.data.transaction_id;
    // @ts-expect-error a success is never status false
    const refused: false = data.status;
    return { ok, transactionId, refused };
  }
  if (error) {
    // A body that is not JSON is refused by WordPress itself, in its own shape.
    if ("code" in error) return { invalidJson: error.code === "rest_invalid_json" };
    const refused: false = error.status;
    // A refusal is told apart by its message, one of the operation's.
    if (error.message === "Transaction already exists") return { refused, exists: error.error };
    // @ts-expect-error a credit never answers a message it does not list
    if (error.message === "Hold not found") return;
  }
}

export async function namedChecks() {
  // @ts-expect-error a named credit without a body does not compile either
  await wallet.createCredit();
  // @ts-expect-error nor one without its amount
  await wallet.createCredit({ body: { user_id: 7, wallet_id: "ngn", request_id: "order-1" } });
  const { data } = await wallet.createCredit({ body: credit });
  if (data) {
    const ok: true = data.status;
    return { ok, transactionId: data.data.transaction_id };
  }
  // @ts-expect-error path ids are integers for named calls too
  await wallet.readHold({ params: { path: { id: "7" } } });
  const hold = await wallet.readHold({ params: { path: { id: 7 } } });
  return { held: hold.data?.data.status };
}

export async function otherChecks() {
  // @ts-expect-error path ids are integers
  await wallet.GET("/wp-json/wallet/v1/holds/{id}", { params: { path: { id: "7" } } });
  const hold = await wallet.GET("/wp-json/wallet/v1/holds/{id}", { params: { path: { id: 7 } } });
  const status: "held" | "captured" | "voided" | "expired" | undefined = hold.data?.data.status;
  // Users and login answer in envelope B: a refusal's status is "failed".
  const login = await wallet.POST("/wp-json/wallet/v1/users/login", {
    body: { user_email: "a@example.com", user_password: "secret" },
  });
  const failed: "failed" | false | undefined =
    login.error && "status" in login.error ? login.error.status : undefined;
  // A form body is described too.
  await wallet.POST(CREDITS, {
    body: credit,
    bodySerializer: (body) =>
      new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)])),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  return { status, failed };
}

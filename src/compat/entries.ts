import * as v from "valibot";
import { ok, send } from "../http/envelope";
import { invalidInput } from "../http/errors";
import { noteRefusal, REQUEST_ID_MAX, tooLongText } from "../http/fields";
import { defineRoute, type Input } from "../http/route";
import { withinChars } from "../text";
import { credit, debit, type UserRef } from "../wallet/movements";
import { Refusal } from "../wallet/refusal";
import { pluginAmountNotPositive } from "../wallet/rules";
import { amountRefused, overlongRefused, PLUGIN_ROUNDING } from "./amounts";
import { keyRouteRefusals } from "./auth";
import { pluginUser } from "./identity";
import { META_DATA_MAX } from "./meta-data";
import { requires } from "./php";
import { EntryRequest } from "./schemas";

// `POST credits` and `POST debits` in the plugin's 1.1.31 dialect (captures 11-36; plugin files
// api/core/credits/create-credits.php, includes/credits/create-credits.php, includes/utils/
// base-utils.php `requires`): its field checks, texts and answers, written through the same verbs
// as /wp-json/wallet/v1 (one entry, idempotent on (user, request_id), race-safe). Where the
// plugin lost money it is not followed: a negative or zero amount is refused (it recorded a credit
// of -5 as a debit that could overdraw), and a debit past the balance is refused (it had no check).

/** A `meta_data` refused: not an object (or a list), or too long to keep. */
export const META_DATA_REFUSED = {
  shape: "meta_data must be an object of key/value pairs",
  length: `meta_data must be at most ${META_DATA_MAX} characters of JSON`,
} as const;

/**
 * A client's `meta_data` as the JSON text kept with the entry: an object (or a list) as sent, none
 * when absent; anything else, or more than META_DATA_MAX characters of it, is refused.
 */
function metaDataText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "object") throw invalidInput({ meta_data: META_DATA_REFUSED.shape });
  const text = JSON.stringify(value);
  if (!withinChars(text, META_DATA_MAX))
    throw invalidInput({ meta_data: META_DATA_REFUSED.length });
  return text;
}

/** A credit's or a debit's fields, sanitized as the plugin read them and checked by its rules. */
const entryInput = (txnType: "CREDIT" | "DEBIT"): Input<PluginEntry> => {
  const schema = EntryRequest(txnType === "CREDIT" ? 0 : "");
  return {
    schema,
    read: (_c, params) => {
      const { note, meta_data, ...fields } = v.parse(schema, params);
      // The plugin's `requires()` for an entry, plus the lengths this service stores.
      const errors = requires({
        user_id: [fields.user_id, "int"],
        wallet_id: [fields.wallet_id, "strInt"],
        request_id: [fields.request_id, "alnum"],
        amount: [fields.amount, "amount"],
      });
      if (!errors.request_id && fields.request_id.length > REQUEST_ID_MAX)
        errors.request_id = tooLongText("request_id", REQUEST_ID_MAX);
      if (!errors.amount) Object.assign(errors, overlongRefused("amount", fields.amount));
      // A sign needs no wallet: refused here, before the wallet and the user are looked up, as
      // wallet/v1 refuses it, whether the amount is written short or long.
      if (!errors.amount && pluginAmountNotPositive(fields.amount))
        Object.assign(errors, amountRefused("amount", "not-positive"));
      if (Object.keys(errors).length > 0) throw invalidInput(errors);
      const noteError = noteRefusal(note);
      if (noteError) throw invalidInput({ note: noteError });
      return {
        ...fields,
        user: pluginUser(fields.user_id),
        note,
        metaData: metaDataText(meta_data),
      };
    },
  };
};

type PluginEntry = Omit<v.InferOutput<ReturnType<typeof EntryRequest>>, "meta_data"> & {
  user: UserRef;
  metaData: string | undefined;
};

const movement = (txnType: "CREDIT" | "DEBIT", action: string, summary: string) =>
  defineRoute(
    {
      path: txnType === "CREDIT" ? "/credits" : "/debits",
      method: "POST",
      summary,
      auth: "admin",
      movesMoney: true,
      access: "write",
      refusals: keyRouteRefusals(action),
      params: entryInput(txnType),
    },
    async (c, fields) => {
      const move = txnType === "CREDIT" ? credit : debit;
      const moved = await move(c.var.service, {
        user: fields.user,
        walletId: fields.wallet_id,
        amount: { sent: fields.amount, policy: PLUGIN_ROUNDING },
        requestId: fields.request_id,
        note: fields.note,
        metaData: fields.metaData,
      }).catch((err: unknown) => {
        const refusal = err instanceof Refusal ? err.reason : undefined;
        // The plugin's answer for an unknown wallet (capture 26-credits-unknown-wallet): no error,
        // no message.
        if (refusal?.code === "wallet_not_found") return null;
        if (refusal?.code === "amount_refused")
          throw invalidInput(amountRefused("amount", refusal.refusal));
        throw err;
      });
      if (!moved) return send(c, 400, { status_code: 400, status: false, message: "" });
      return ok(c, 200, "Transaction Completed", {
        transaction_id: moved.transactionId,
        // The plugin's credits cast the id to int; its debits answered it as text.
        user_id: txnType === "CREDIT" ? moved.userId : String(moved.userId),
      });
    },
  );

export const compatCredits = movement(
  "CREDIT",
  "rimplenet_create_credits",
  "Credit a user's wallet",
);
export const compatDebits = movement("DEBIT", "rimplenet_create_debits", "Debit a user's wallet");

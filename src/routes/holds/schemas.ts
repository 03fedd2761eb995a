import * as v from "valibot";
import {
  CaptureHoldParams,
  choiceField,
  EntryParams,
  integerIn,
  pathIdField,
  readerUserIdField,
  userIdField,
  walletIdField,
} from "../../http/fields";
import { DEFAULT_HOLD_S, type HoldView, MAX_HOLD_S } from "../../wallet/holds";
import { holdRecord } from "../../wallet/rules";
import { PAGE_FIELDS } from "../transactions/schemas";

/** A credit's fields, in its order of errors, its user_id required, then the hold's own. */
export const PlaceHoldParams = v.object({
  ...EntryParams.entries,
  user_id: userIdField(),
  // Seconds until the hold stops counting (and may no longer be captured).
  expires_in: v.optional(integerIn("expires_in", 1, MAX_HOLD_S), String(DEFAULT_HOLD_S)),
});

/** A capture's input: the hold in the path, then the body's fields. */
export const CaptureHoldRouteParams = v.object({ id: pathIdField, ...CaptureHoldParams.entries });

export const HOLD_STATUSES = ["held", "captured", "voided", "expired"] as const;

export const HoldListParams = v.object({
  user_id: readerUserIdField,
  wallet_id: v.optional(walletIdField),
  status: v.optional(
    choiceField(HOLD_STATUSES, "status must be one of held, captured, voided, expired"),
  ),
  ...PAGE_FIELDS,
});

/** POST /holds's answer: the head of the hold's record. */
export const placedRecord = (view: HoldView) => {
  const { hold_id, user_id, wallet_id, amount, expires_at } = holdRecord(view);
  return { hold_id, user_id, wallet_id, amount, status: "held" as const, expires_at };
};

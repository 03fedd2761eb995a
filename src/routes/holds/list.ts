import * as v from "valibot";
import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { readerFields } from "../../http/validation";
import { pageHeaders } from "../../http/wp-core";
import { listHolds } from "../../wallet/holds";
import { holdRecord } from "../../wallet/rules";
import { HoldAnswer } from "../answers";
import { HoldListParams } from "./schemas";

export const listHoldsRoute = defineRoute(
  {
    path: "/holds",
    method: "GET",
    operationId: "listHolds",
    summary: "A user's holds, newest first, by wallet and status",
    auth: "reader",
    owner: (params) => params.user_id,
    params: readerFields(HoldListParams),
    errors: ["invalid_input", "user_not_found"],
    data: v.array(HoldAnswer),
  },
  async (c, fields) => {
    // An administrator names the user, as for /transactions; a subscriber reads its own.
    const { holds, total } = await listHolds(c.var.service, {
      userId: fields.user_id,
      walletId: fields.wallet_id,
      status: fields.status,
      page: fields.page,
      perPage: fields.per_page,
    });
    return ok(
      c,
      200,
      "Holds retrieved",
      holds.map(holdRecord),
      pageHeaders(c, total, fields.page, fields.per_page),
    );
  },
);

import * as v from "valibot";
import { requireReaderOf } from "../../http/auth";
import { ok } from "../../http/envelope";
import { invalidInput } from "../../http/errors";
import { readParams } from "../../http/params";
import { siteUrl } from "../../http/site";
import { checkFields, EMPTY } from "../../http/validation";
import { pageLinks } from "../../http/wp-core";
import { listHolds } from "../../wallet/holds";
import { HoldAnswer } from "../answers";
import { defineRoute } from "../route";
import { HoldListParams, holdRecord } from "./schemas";

export const listHoldsRoute = defineRoute(
  {
    path: "/holds",
    method: "GET",
    summary: "A user's holds, newest first, by wallet and status",
    auth: "reader",
    params: HoldListParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 200,
    data: v.array(HoldAnswer),
  },
  async (c) => {
    const params = await readParams(c);
    requireReaderOf(c, params.user_id);
    const principal = c.get("principal");
    const { output: fields, errors = {} } = checkFields(HoldListParams, params);
    // An administrator names the user, as for /transactions; a subscriber reads its own.
    if (params.user_id === undefined && principal.role === "administrator") errors.user_id = EMPTY;
    if (!fields || Object.keys(errors).length > 0) {
      const keys = Object.keys(HoldListParams.entries);
      throw invalidInput(
        Object.fromEntries(keys.filter((k) => errors[k]).map((k) => [k, errors[k]!])),
      );
    }
    const { holds, total } = await listHolds(
      c.var.db,
      {
        userId: fields.user_id ?? principal.userId,
        walletId: fields.wallet_id,
        status: fields.status,
        page: fields.page,
        perPage: fields.per_page,
      },
      c.get("nowMs")(),
    );
    const pages = Math.ceil(total / fields.per_page);
    const links = pageLinks(new URL(c.req.url), siteUrl(c), fields.page, pages);
    return ok(c, 200, "Holds retrieved", holds.map(holdRecord), {
      "X-WP-Total": String(total),
      "X-WP-TotalPages": String(pages),
      ...(links.length > 0 ? { Link: links.join(", ") } : {}),
    });
  },
);

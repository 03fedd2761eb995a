import * as v from "valibot";
import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { siteUrl } from "../../http/site";
import { readerFields } from "../../http/validation";
import { pageLinks } from "../../http/wp-core";
import { listHolds } from "../../wallet/holds";
import { HoldAnswer } from "../answers";
import { HoldListParams, holdRecord } from "./schemas";

export const listHoldsRoute = defineRoute(
  {
    path: "/holds",
    method: "GET",
    operationId: "listHolds",
    summary: "A user's holds, newest first, by wallet and status",
    auth: "reader",
    owner: (params) => params.user_id,
    params: readerFields(HoldListParams),
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 200,
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
    const pages = Math.ceil(total / fields.per_page);
    const links = pageLinks(new URL(c.req.url), siteUrl(c), fields.page, pages);
    return ok(c, 200, "Holds retrieved", holds.map(holdRecord), {
      "X-WP-Total": String(total),
      "X-WP-TotalPages": String(pages),
      ...(links.length > 0 ? { Link: links.join(", ") } : {}),
    });
  },
);

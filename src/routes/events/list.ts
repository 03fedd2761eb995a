import * as v from "valibot";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { readParams } from "../../http/params";
import { siteUrl } from "../../http/site";
import { parseFields } from "../../http/validation";
import { readFeed } from "../../wallet/events";
import { EventAnswer } from "../answers";
import { defineRoute } from "../route";
import { EventFeedParams } from "./schemas";

export const listEvents = defineRoute(
  {
    path: "/events",
    method: "GET",
    summary: "Every committed change as an event, oldest first, after an id",
    auth: "admin",
    params: EventFeedParams,
    envelope: "A",
    errors: ["invalid_input"],
    success: 200,
    data: v.array(EventAnswer),
  },
  async (c) => {
    requireAdmin(c, "read");
    const query = parseFields(EventFeedParams, await readParams(c));
    const site = { siteUrl: siteUrl(c), timeZone: c.env.SITE_TIMEZONE };
    return ok(c, 200, "Events retrieved", await readFeed(c.var.db, query, site));
  },
);

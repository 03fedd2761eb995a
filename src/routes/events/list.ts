import * as v from "valibot";
import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { readFeed } from "../../wallet/events";
import { EventAnswer } from "../answers";
import { EventFeedParams } from "./schemas";

export const listEvents = defineRoute(
  {
    path: "/events",
    method: "GET",
    operationId: "listEvents",
    summary:
      "Every change to money, holds, users and wallets as an event, oldest first, after an id",
    auth: "admin",
    access: "read",
    params: fields(EventFeedParams),
    errors: ["invalid_input"],
    data: v.array(EventAnswer),
  },
  async (c, query) => ok(c, 200, "Events retrieved", await readFeed(c.var.service, query)),
);

import * as v from "valibot";
import { EVENT_TYPES } from "../../events/records";
import { ok } from "../../http/envelope";
import { documented, eventTypeNames, integerIn } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { FEED_LIMITS, readFeed } from "../../wallet/events";
import { EventAnswer } from "../answers";

/** `a,b`: event type names, comma-separated. */
const typesField = v.pipe(
  v.string("types must be text"),
  v.transform((s) => s.split(",")),
  eventTypeNames("types"),
  documented({
    type: "string",
    description: `Event types, comma-separated, among ${EVENT_TYPES.join(", ")}. Left out or empty: every type`,
  }),
);

const EventFeedParams = v.object({
  after: v.optional(integerIn("after", 0, Number.MAX_SAFE_INTEGER), 0),
  limit: v.optional(integerIn("limit", 1, FEED_LIMITS.maxLimit), FEED_LIMITS.defaultLimit),
  types: v.optional(typesField, ""),
});

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

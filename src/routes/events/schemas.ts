import * as v from "valibot";
import { EVENT_TYPES } from "../../events/records";
import { documented, eventTypeNames, integerIn } from "../../http/fields";
import { FEED_LIMITS } from "../../wallet/events";

/** `a,b`: event type names, comma-separated. */
const typesField = v.pipe(
  v.string("types must be text"),
  v.transform((s) => s.split(",")),
  eventTypeNames("types"),
  documented({
    type: "string",
    description: `Event types, comma-separated, among ${EVENT_TYPES.join(", ")}`,
  }),
);

export const EventFeedParams = v.object({
  after: v.optional(integerIn("after", 0, Number.MAX_SAFE_INTEGER), 0),
  limit: v.optional(integerIn("limit", 1, FEED_LIMITS.maxLimit), FEED_LIMITS.defaultLimit),
  types: v.optional(typesField, ""),
});

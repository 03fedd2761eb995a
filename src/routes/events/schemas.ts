import * as v from "valibot";
import { EVENT_TYPES, isEventType } from "../../events/records";
import { documented, integerIn } from "../../http/fields";
import { FEED_LIMITS } from "../../wallet/events";

/** `a,b` (spaces around names ignored, repeats collapsed); each a known event type. */
const eventTypesField = (name: string) =>
  v.pipe(
    v.string(`${name} must be text`),
    v.transform((s) => [...new Set(s.split(",").map((t) => t.trim()))].filter((t) => t !== "")),
    v.check(
      (types) => types.every(isEventType),
      `${name} must name event types among ${EVENT_TYPES.join(", ")}`,
    ),
    v.transform((types) => types.filter(isEventType)),
    documented({
      type: "string",
      description: `Event types, comma-separated, among ${EVENT_TYPES.join(", ")}`,
    }),
  );

export const EventFeedParams = v.object({
  after: v.optional(integerIn("after", 0, Number.MAX_SAFE_INTEGER), 0),
  limit: v.optional(integerIn("limit", 1, FEED_LIMITS.maxLimit), FEED_LIMITS.defaultLimit),
  types: v.optional(eventTypesField("types"), ""),
});

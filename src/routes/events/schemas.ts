import * as v from "valibot";
import { EVENT_TYPES, isEventType } from "../../events/records";
import { FEED_LIMITS } from "../../wallet/events";

const integerIn = (name: string, min: number, max: number) =>
  v.pipe(
    v.union([v.string(), v.number()], `${name} requires an integer`),
    v.transform(String),
    v.regex(/^[0-9]{1,16}$/, `${name} requires an integer`),
    v.transform(Number),
    v.minValue(min, `${name} must be between ${min} and ${max}`),
    v.maxValue(max, `${name} must be between ${min} and ${max}`),
  );

/** `a,b` (spaces around names ignored, repeats collapsed); each a known event type. */
export const eventTypesField = (name: string) =>
  v.pipe(
    v.string(`${name} must be text`),
    v.transform((s) => [...new Set(s.split(",").map((t) => t.trim()))].filter((t) => t !== "")),
    v.check(
      (types) => types.every(isEventType),
      `${name} must name event types among ${EVENT_TYPES.join(", ")}`,
    ),
    v.transform((types) => types.filter(isEventType)),
  );

export const EventFeedParams = v.object({
  after: v.optional(integerIn("after", 0, Number.MAX_SAFE_INTEGER), 0),
  limit: v.optional(integerIn("limit", 1, FEED_LIMITS.maxLimit), FEED_LIMITS.defaultLimit),
  types: v.optional(eventTypesField("types"), ""),
});

import * as v from "valibot";
import { pathIdField } from "../../http/fields";
import { pathFields } from "../../http/validation";

/** The input of a route on the user a `{user_id}` path names. */
export const userPath = pathFields(v.object({ user_id: pathIdField }));

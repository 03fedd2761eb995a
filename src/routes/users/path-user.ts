import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../../env";
import { userNotFound } from "../../http/errors";
import { type PathRef, pathIdField } from "../../http/fields";
import { pathFields } from "../../http/validation";
import { requireUsers } from "../../wallet/movements";

/** The input of a route on the user a `{user_id}` path names. */
export const userPath = pathFields(v.object({ user_id: pathIdField }));

/** The user a `{user_id}` path names, or 404 naming the text sent. */
export async function pathUser(c: Context<AppEnv>, { id, ref }: PathRef<number>) {
  if (id === null) throw userNotFound(ref);
  const [user] = await requireUsers(c.var.db, [{ id, as: ref }]);
  return user!;
}

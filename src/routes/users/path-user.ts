import type { Context } from "hono";
import { findUsers } from "../../db/users";
import type { AppEnv } from "../../env";
import { userNotFound } from "../../http/errors";
import { pathParam } from "../../http/route";

/** The user a `{user_id}` path names (digits, by the route's pattern), or 404 naming the text sent. */
export async function pathUser(c: Context<AppEnv>) {
  const raw = pathParam(c, "user_id");
  const id = raw.length <= 15 ? Number(raw) : undefined;
  const user = id === undefined ? undefined : (await findUsers(c.var.db, [id])).get(id);
  if (!user) throw userNotFound(raw);
  return user;
}

import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { userNotFound } from "../../http/errors";
import { pathParam } from "../../http/route";
import { requireUsers } from "../../wallet/movements";

/** The user a `{user_id}` path names (digits, by the route's pattern), or 404 naming the text sent. */
export async function pathUser(c: Context<AppEnv>) {
  const raw = pathParam(c, "user_id");
  if (raw.length > 15) throw userNotFound(raw);
  const [user] = await requireUsers(c.var.db, [{ id: Number(raw), as: raw }]);
  return user!;
}

import * as v from "valibot";
import { ok } from "../http/envelope";
import { defineRoute, type Input } from "../http/route";
import { listUsers, readUser, type User } from "../wallet/directory";
import { mysqlDate, seconds } from "../wallet/rules";
import { jwtRouteRefusals } from "./auth";
import { pluginUserRef } from "./identity";
import { phpEmpty, pluginPage } from "./php";
import { pluginUserNotFound } from "./respond";
import { UsersRequest } from "./schemas";

// `GET users` (captures 09, 10; plugin includes/users/get-users.php), in envelope B.

const PER_PAGE = 10;

function userRecord(u: User) {
  return {
    id: u.id,
    username: u.username,
    user_email: u.email,
    // WordPress stores user_registered in UTC (gmdate) whatever the site's zone, and the plugin
    // printed it as stored; imported users keep their WordPress value this way.
    user_created_at: mysqlDate(seconds(u.registeredAtMs), "UTC"),
    // WordPress's default display name is the login; this service keeps no other.
    display_name: u.username,
    first_name: u.firstName,
    last_name: u.lastName,
    roles: [u.role],
  };
}

/**
 * The user `user_id` names by the dialect's one rule (identity.ts), or a page of users for an empty
 * or "0" user_id, as the plugin listed them (`$user_id ? $user_id : null`).
 */
const usersInput: Input<{ user?: ReturnType<typeof pluginUserRef>; page: number }> = {
  schema: UsersRequest,
  read: (_c, params) => {
    const req = v.parse(UsersRequest, params);
    const user = phpEmpty(req.user_id) ? undefined : pluginUserRef(req.user_id);
    return { user, page: pluginPage(req.page) };
  },
};

export const usersRead = defineRoute(
  {
    path: "/users",
    method: "GET",
    summary: "One user, or a page of users",
    // A subscriber reads itself, an administrator anyone (checked below, once the user is named).
    auth: "reader",
    refusals: jwtRouteRefusals,
    params: usersInput,
    envelope: "B",
  },
  async (c, { user: named, page }) => {
    if (named !== undefined) {
      // "Is it you" compares ids (the plugin compared the text with the caller's username, so
      // `0001` was "you" for a subscriber named 0001 and then read user 1). A subscriber is refused
      // before existence: it learns nothing about anyone else.
      const user = await readUser(c.var.service, named);
      if (!user) return pluginUserNotFound(c);
      return ok(c, 200, "User retrieved successfully", userRecord(user));
    }

    const { rows, total } = await listUsers(c.var.service, {
      offset: (page - 1) * PER_PAGE,
      limit: PER_PAGE,
    });
    return ok(c, 200, "User retrieved successfully", {
      others: { totalPages: Math.ceil(total / PER_PAGE), currentPage: page },
      users: rows.map(userRecord),
    });
  },
);

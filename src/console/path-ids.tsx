// The ids in a console page's path (a user, a transaction, a hold, a batch, a webhook, a key), read
// by the API's one rule for a record's id in a path (http/fields.ts pathIdField), so the console
// parses no id of its own. The only place the console reads its path's parameters.
import type { Context } from "hono";
import * as v from "valibot";
import { pathIdField } from "../http/fields";
import type { IdRef } from "../wallet/context";
import type { ConsoleEnv } from "./env";
import { noticeOf } from "./page";
import { BASE } from "./session";
import { Page } from "./views";

/** An id the path named: the number, and the text as sent (pages and redirects repeat it). */
export type PathId = IdRef & { id: number };

/** A console address that names no page, or names a record by a text no id can be. */
export const notFound = (c: Context<ConsoleEnv>) =>
  c.html(
    <Page title="Not found" session={c.var.session}>
      <p>
        No console page is at this address. <a href={`${BASE}/`}>Go to the overview</a>.
      </p>
    </Page>,
    404,
  );

/**
 * The page of a record an address names by an id that is none of the site's (a user, a batch),
 * 404: it says so, with the notice a form sent to it left (its refusal), as every page shows one.
 */
export const noSuch = async (c: Context<ConsoleEnv>, what: "user" | "batch", id: number | string) =>
  c.html(
    <Page
      title={`No such ${what}`}
      session={c.var.session}
      current="users"
      notice={await noticeOf(c)}
    >
      <p>
        There is no {what} {id}. <a href={`${BASE}/users`}>All users</a>
      </p>
    </Page>,
    404,
  );

/**
 * A page's handler given the ids its path names (`:id`, `:txn`…), each read as the API reads a
 * record's id; a path whose text names no id (`abc`, `1e3`, past 15 digits) is the not-found page,
 * before the handler reads a form or moves money.
 */
export const withIds =
  <K extends string>(
    names: readonly K[],
    handler: (c: Context<ConsoleEnv>, ids: Record<K, PathId>) => Response | Promise<Response>,
  ) =>
  (c: Context<ConsoleEnv>) => {
    const ids = {} as Record<K, PathId>;
    for (const name of names) {
      const { id, ref } = v.parse(pathIdField, c.req.param(name));
      if (id === null) return notFound(c);
      ids[name] = { id, ref };
    }
    return handler(c, ids);
  };

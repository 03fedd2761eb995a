// The app's router. Hono's default (SmartRouter) tries its RegExpRouter first, which gives up on
// this route table (a `:user_id{\d+}` route beside the plugin dialect's `/:ns/v1` ones), and so
// runs on the TrieRouter, whose search over several hundred routes and middleware every request
// would pay for. A path's match never changes once the routes are added, so its result is kept per
// isolate, as Hono computed it, for the paths seen most recently.
import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { BoundedMap } from "../bounded-map";

/** Paths remembered: the routes' own paths, and some room for those that carry an id. */
export const REMEMBERED_PATHS = 1_000;

export class MemoRouter<T> implements Router<T> {
  name = "MemoRouter + TrieRouter";
  readonly #router = new TrieRouter<T>();
  readonly #seen = new BoundedMap<string, Result<T>>(REMEMBERED_PATHS);

  add(method: string, path: string, handler: T) {
    this.#router.add(method, path, handler);
  }

  /** Hono reads a result and never changes it, so one result serves every request of its path. */
  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`; // a method is a token: it holds no space
    let result = this.#seen.get(key);
    if (result === undefined) {
      result = this.#router.match(method, path);
      this.#seen.set(key, result);
    }
    return result;
  }
}

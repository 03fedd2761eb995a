import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { postSingleEntry } from "./post-entry";

export const createCredit = new Hono<AppEnv>().post("/", authenticate, async (c) => {
  requireAdmin(c, "write");
  return postSingleEntry(c, "CREDIT");
});

import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { postSingleEntry } from "../credits/post-entry";

export const createDebit = new Hono<AppEnv>().post("/", authenticate, async (c) => {
  requireAdmin(c, "write");
  return postSingleEntry(c, "DEBIT");
});

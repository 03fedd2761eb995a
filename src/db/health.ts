import { sql } from "drizzle-orm";
import type { Db } from "./client";

/** One trivial query: it answers when D1 is reachable, and throws what D1 threw when not. */
export const pingDatabase = (db: Db) => db.run(sql`SELECT 1`);

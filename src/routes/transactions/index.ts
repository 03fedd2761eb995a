import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { listTransactions } from "./list";

export const transactionRoutes = new Hono<AppEnv>().route("/", listTransactions);

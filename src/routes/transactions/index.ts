import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { listTransactions } from "./list";
import { readTransaction } from "./read";
import { reverseTransaction } from "./reverse";

export const transactionRoutes = new Hono<AppEnv>()
  .route("/", listTransactions)
  .route("/", readTransaction)
  .route("/", reverseTransaction);

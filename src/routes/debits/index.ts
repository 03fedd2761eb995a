import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { createDebit } from "./create";

export const debits = new Hono<AppEnv>().route("/", createDebit);

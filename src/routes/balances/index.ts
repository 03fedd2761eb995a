import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { readBalance } from "./read";

export const balances = new Hono<AppEnv>().route("/", readBalance);

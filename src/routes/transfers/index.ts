import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { createTransfer } from "./create";

export const transfers = new Hono<AppEnv>().route("/", createTransfer);

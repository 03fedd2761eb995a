import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { createCredit } from "./create";

export const credits = new Hono<AppEnv>().route("/", createCredit);

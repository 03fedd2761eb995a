import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { createApiKey } from "./create";
import { manageApiKeys } from "./manage";

export const apiKeyRoutes = new Hono<AppEnv>().route("/", createApiKey).route("/", manageApiKeys);

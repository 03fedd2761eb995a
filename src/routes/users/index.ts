import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { createUser } from "./create";
import { login } from "./login";
import { unlockUser } from "./unlock";

// Users and login answer in envelope B (both data and error keys, status "failed").
export const userRoutes = new Hono<AppEnv>()
  .use(async (c, next) => {
    c.set("envelope", "B");
    await next();
  })
  .route("/", createUser)
  .route("/login", login)
  .route("/", unlockUser);

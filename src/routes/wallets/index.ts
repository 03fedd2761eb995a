import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { createWallet } from "./create";
import { readWallets } from "./read";

export const walletRoutes = new Hono<AppEnv>().route("/", createWallet).route("/", readWallets);

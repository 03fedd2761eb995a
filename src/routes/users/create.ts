import { Hono } from "hono";
import { hashPassword } from "../../auth/password";
import { createDb } from "../../db/client";
import { findTakenFields, insertUser } from "../../db/users";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { ApiError } from "../../http/errors";
import { readParams } from "../../http/params";
import { collectUserErrors, UserParams } from "./schemas";

const TAKEN = { username: "username already taken", email: "user_email already taken" } as const;
const validationError = (error: unknown) => new ApiError(400, "Validation error", error);

export const createUser = new Hono<AppEnv>().post("/", authenticate, async (c) => {
  requireAdmin(c, "write");
  const params = await readParams(c);
  const db = createDb(c.env.DB);

  const { username, user_email } = params;
  const taken =
    typeof username === "string" || typeof user_email === "string"
      ? await findTakenFields(db, String(username ?? ""), String(user_email ?? "").trim())
      : { username: false, email: false };
  const errors = collectUserErrors(UserParams, params, {
    ...(taken.username ? { username: [TAKEN.username] } : {}),
    ...(taken.email ? { user_email: [TAKEN.email] } : {}),
  });
  if (errors.length > 0) throw validationError(errors);

  const fields = {
    username: String(username),
    email: String(user_email).trim(),
    password: String(params.user_password),
    firstName: String(params.first_name ?? ""),
    lastName: String(params.last_name ?? ""),
  };
  const result = await insertUser(db, {
    username: fields.username,
    email: fields.email,
    passwordHash: await hashPassword(fields.password),
    firstName: fields.firstName,
    lastName: fields.lastName,
    role: "subscriber",
    registeredAtMs: c.get("nowMs")(),
  });
  // A concurrent creation of the same username or e-mail lost the race on the unique index.
  if ("taken" in result) {
    throw validationError([{ [result.taken === "username" ? "user_login" : "user_email"]: [TAKEN[result.taken]] }]);
  }
  return ok(c, 201, "User created successfully", { id: result.id });
});

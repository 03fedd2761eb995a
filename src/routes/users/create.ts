import type { Context } from "hono";
import { hashPassword } from "../../auth/password";
import { findTakenFields, insertUserIfFree } from "../../db/users";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { validationError } from "../../http/errors";
import { readParams } from "../../http/params";
import { UserCreatedAnswer } from "../answers";
import { defineRoute } from "../route";
import { collectUserErrors, UserParams } from "./schemas";

const TAKEN = { username: "username already taken", email: "user_email already taken" } as const;
const takenErrors = (taken: { username: boolean; email: boolean }) => ({
  ...(taken.username ? { username: [TAKEN.username] } : {}),
  ...(taken.email ? { user_email: [TAKEN.email] } : {}),
});

/**
 * Creates a subscriber from the request's fields, once its caller is known to be an administrator
 * with write access: the plugin's checks and texts, shared by both dialects.
 */
export async function createSubscriber(c: Context<AppEnv>, dialect: { plugin?: boolean } = {}) {
  const params = await readParams(c);
  const db = c.var.db;

  const errors = collectUserErrors(UserParams, params, {}, dialect);
  const { username, user_email } = params;
  if (errors.length > 0) {
    // Report a taken username or e-mail beside the other errors, as the plugin did.
    const taken =
      typeof username === "string" || typeof user_email === "string"
        ? await findTakenFields(
            db,
            typeof username === "string" ? username : "",
            typeof user_email === "string" ? user_email.trim() : "",
          )
        : { username: false, email: false };
    throw validationError(collectUserErrors(UserParams, params, takenErrors(taken), dialect));
  }

  const result = await insertUserIfFree(db, {
    username: String(username),
    email: String(user_email).trim(),
    passwordHash: await hashPassword(String(params.user_password)),
    firstName: String(params.first_name ?? ""),
    lastName: String(params.last_name ?? ""),
    role: "subscriber",
    registeredAtMs: c.get("nowMs")(),
  });
  if (result.id === undefined)
    throw validationError(
      collectUserErrors(UserParams, params, takenErrors(result.taken), dialect),
    );
  return ok(c, 201, "User created successfully", { id: result.id });
}

export const createUser = defineRoute(
  {
    path: "/users",
    method: "POST",
    summary: "Create a subscriber",
    auth: "admin",
    params: UserParams,
    envelope: "B",
    errors: ["validation_error"],
    success: 201,
    data: UserCreatedAnswer,
  },
  async (c) => {
    requireAdmin(c, "write");
    return createSubscriber(c);
  },
);

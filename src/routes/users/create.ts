import { requireAdmin } from "../../http/auth";
import { answerNewSubscriber, UserParams } from "../../http/user-fields";
import { UserCreatedAnswer } from "../answers";
import { defineRoute } from "../route";

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
    return answerNewSubscriber(c);
  },
);

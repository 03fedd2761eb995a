import { defineRoute } from "../../http/route";
import { answerNewSubscriber, newSubscriberFields } from "../../http/user-fields";
import { UserCreatedAnswer } from "../answers";

export const createUser = defineRoute(
  {
    path: "/users",
    method: "POST",
    operationId: "createUser",
    summary: "Create a subscriber",
    auth: "admin",
    access: "write",
    params: newSubscriberFields(),
    envelope: "B",
    errors: ["validation_error"],
    success: 201,
    data: UserCreatedAnswer,
  },
  (c, input) => answerNewSubscriber(c, input),
);

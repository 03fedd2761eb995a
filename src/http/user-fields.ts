// The fields of a WordPress user as both dialects take them (the contract took the plugin's checks
// and texts: section 8), and the one way a subscriber is created from a request, shared by
// wallet/v1's `POST /users` and the plugin's `POST users`.
import type { Context } from "hono";
import * as v from "valibot";
import { PASSWORD_LENGTH } from "../auth/password";
import { API_AUDIENCE, PERSISTENT_TOKEN_LIFETIME_S, TOKEN_LIFETIME_S } from "../auth/tokens";
import { EMAIL_ADDRESS, EMAIL_MAX_LENGTH, EMAIL_MIN_LENGTH } from "../email-address";
import type { AppEnv } from "../env";
import type { ServiceContext } from "../wallet/context";
import { type Credentials, signIn } from "../wallet/sign-in";
import { type Clashes, createSubscriber, findNewUserClashes } from "../wallet/users";
import { aliasField, withAliases } from "./aliases";
import { ok } from "./envelope";
import { validationError } from "./errors";
import {
  anyText,
  atMost,
  charsAtLeast,
  documented,
  textField,
  USERNAME_MAX,
  usernameAtMost,
} from "./fields";
import type { Input } from "./route";

/** A missing or empty field's words: on wallet/v1 the only ones it gets (collectUserErrors). */
const REQUIRED = {
  username: "username is required",
  user_email: "user_email is required",
  user_password: "user_password is required",
} as const;

/** The too-short words, which the plugin also said of a missing field (its checks ran on ""). */
const TOO_SHORT = {
  username: "username must be atleast 4 chars",
  user_password: `Please enter at least ${PASSWORD_LENGTH.min} characters for the user_password`,
} as const;

export const UserParams = v.object({
  // A JSON number is its text, as the plugin's sanitize_text_field read it (`12345` is a username).
  username: v.pipe(
    anyText(REQUIRED.username),
    v.nonEmpty(REQUIRED.username),
    v.check((s) => !/\s/.test(s), "username must not contain space"),
    // WordPress's validate_username: ASCII letters, digits and _ . - @, so case-insensitive
    // uniqueness (SQLite lower() folds A-Z only) means what it says.
    v.regex(/^[A-Za-z0-9_.@\s-]*$/, "username may only contain letters, numbers and _ . - @"),
    charsAtLeast(4, TOO_SHORT.username),
    usernameAtMost,
    // Clients are told no space; the check above refuses one in its own words, so the regex lets
    // a space through to it rather than answering a second text.
    documented({
      type: "string",
      minLength: 4,
      maxLength: USERNAME_MAX,
      pattern: "^[A-Za-z0-9_.@-]*$",
    }),
  ),
  user_email: v.pipe(
    anyText(REQUIRED.user_email),
    v.nonEmpty(REQUIRED.user_email),
    v.transform((s) => s.trim()),
    v.minLength(EMAIL_MIN_LENGTH, "Invalid user_email"),
    v.maxLength(EMAIL_MAX_LENGTH, "Invalid user_email"),
    v.regex(EMAIL_ADDRESS, "Invalid user_email"),
  ),
  user_password: v.pipe(
    anyText(REQUIRED.user_password),
    v.nonEmpty(REQUIRED.user_password),
    charsAtLeast(PASSWORD_LENGTH.min, TOO_SHORT.user_password),
    atMost(PASSWORD_LENGTH.max, "user_password"),
    documented({ type: "string", minLength: PASSWORD_LENGTH.min, maxLength: PASSWORD_LENGTH.max }),
  ),
  first_name: v.optional(textField(100, "first_name"), ""),
  last_name: v.optional(textField(100, "last_name"), ""),
});

// Trimmed as the address was when the account was made (and as WordPress's sanitize_user does). A
// JSON number is its text, as for the password and for a new user's username (`12345` signs in).
const loginText = v.pipe(
  anyText(REQUIRED.user_email),
  v.nonEmpty(REQUIRED.user_email),
  v.transform((s) => s.trim()),
);

export const LoginParams = v.object({
  user_email: loginText,
  username: aliasField("user_email", loginText, "an e-mail or a username alike"),
  user_password: v.pipe(anyText(REQUIRED.user_password), v.nonEmpty(REQUIRED.user_password)),
  token_expiration: v.optional(
    v.pipe(
      anyText("token_expiration must be text"),
      v.description(
        `\`persistent\`: a token valid ${PERSISTENT_TOKEN_LIFETIME_S} s; otherwise ${TOKEN_LIFETIME_S} s`,
      ),
    ),
  ),
});

/** The wire key a field's errors are reported under, where it is not the field's name. */
export const ERROR_KEYS: Record<string, string> = {
  username: "user_login",
  user_password: "user_pass",
};

/**
 * Every text per field, in schema order, as `[{"user_login":[…]}, …]`. A missing or empty field
 * says only that it is required; in the plugin's dialect (`plugin`) also that it is too short, as
 * the plugin said it.
 */
function collectUserErrors(
  schema: v.ObjectSchema<v.ObjectEntries, undefined>,
  params: Record<string, unknown>,
  extra: Record<string, string[]> = {},
  { plugin = false } = {},
) {
  const result = v.safeParse(schema, withAliases(schema, params));
  const byField = new Map<string, string[]>();
  for (const issue of result.issues ?? []) {
    const field = String(issue.path?.[0]?.key ?? "");
    const required = (REQUIRED as Record<string, string>)[field];
    const tooShort = (TOO_SHORT as Record<string, string>)[field];
    const message = issue.input === undefined && required ? required : issue.message;
    const list = byField.get(field) ?? [];
    if (message === required)
      byField.set(field, plugin && tooShort ? [message, tooShort] : [message]);
    else if (!list.includes(required ?? "") && !list.includes(message))
      byField.set(field, [...list, message]);
  }
  for (const [field, messages] of Object.entries(extra))
    byField.set(field, [...(byField.get(field) ?? []), ...messages]);
  return Object.keys(schema.entries)
    .filter((field) => byField.has(field))
    .map((field) => ({ [ERROR_KEYS[field] ?? field]: byField.get(field)! }));
}

// The plugin's texts for a taken username or e-mail; "taken" also when the text is another
// account's e-mail or username (docs/security.md#usernames-and-e-mails).
export const CLASH = {
  usernameNotOwnEmail: "username may only be an e-mail address if it is the user_email",
  username: "username already taken",
  email: "user_email already taken",
} as const;
const clashErrors = (clashes: Clashes) => {
  const username = [
    ...(clashes.usernameNotOwnEmail ? [CLASH.usernameNotOwnEmail] : []),
    ...(clashes.username ? [CLASH.username] : []),
  ];
  return {
    ...(username.length > 0 ? { username } : {}),
    ...(clashes.email ? { user_email: [CLASH.email] } : {}),
  };
};

/**
 * An envelope-B route's declared input: its schema, a declared alias read as the field it names, or
 * a validation error listing every field's texts.
 */
export const userFields = <S extends v.ObjectSchema<v.ObjectEntries, undefined>>(
  schema: S,
): Input<v.InferOutput<S>> => ({
  schema,
  read: (_c, params) => {
    const parsed = v.safeParse(schema, withAliases(schema, params));
    if (!parsed.success) throw validationError(collectUserErrors(schema, params));
    return parsed.output;
  },
});

type Dialect = { plugin?: boolean };

/** What `anyText` reads a value as, or undefined for a value it refuses. */
const textOf = (x: unknown) => {
  const read = v.safeParse(anyText(""), x);
  return read.success ? read.output : undefined;
};

/**
 * A new subscriber's fields: the plugin's checks and texts, a taken username or e-mail (or one
 * that would name another account) reported beside the other errors (as the plugin did), in
 * either dialect.
 */
export const newSubscriberFields = (
  dialect: Dialect = {},
): Input<v.InferOutput<typeof UserParams>> => ({
  schema: UserParams,
  read: async (c, params) => {
    const parsed = v.safeParse(UserParams, params);
    if (parsed.success) return parsed.output;
    const [username, user_email] = [textOf(params.username), textOf(params.user_email)];
    const clashes =
      username !== undefined || user_email !== undefined
        ? await findNewUserClashes(c.var.db, username ?? "", (user_email ?? "").trim())
        : { username: false, email: false, usernameNotOwnEmail: false };
    throw validationError(collectUserErrors(UserParams, params, clashErrors(clashes), dialect));
  },
});

/**
 * Creates a subscriber from its checked fields (wallet/users.ts). The insert itself applies the
 * username and e-mail rule, so a clash that arose meanwhile is refused as the check would have
 * refused it, in the same words.
 */
export async function newSubscriber(
  ctx: ServiceContext,
  fields: v.InferOutput<typeof UserParams>,
  dialect: Dialect = {},
) {
  const result = await createSubscriber(ctx, {
    username: fields.username,
    email: fields.user_email,
    password: fields.user_password,
    firstName: fields.first_name,
    lastName: fields.last_name,
  });
  if ("clashes" in result)
    throw validationError(
      collectUserErrors(UserParams, fields, clashErrors(result.clashes), dialect),
    );
  return result;
}

/** POST /users in either dialect: the new subscriber's id. */
export const answerNewSubscriber = async (
  c: Context<AppEnv>,
  fields: v.InferOutput<typeof UserParams>,
  dialect: Dialect = {},
) =>
  ok(c, 201, "User created successfully", {
    id: (await newSubscriber(c.var.service, fields, dialect)).id,
  });

/** A sign-in's fields, in either dialect, for an API token (signInWith sets its `audience`). */
export type SignInFields = Omit<Credentials, "audience">;

const loginFields = userFields(LoginParams);

export const signInFields: Input<SignInFields> = {
  schema: LoginParams,
  read: async (c, params) => {
    const { user_email, user_password, token_expiration } = await loginFields.read(c, params);
    return {
      login: user_email,
      password: user_password,
      persistent: token_expiration === "persistent",
    };
  },
};

/** A sign-in for an API token, in either dialect. Refusals are thrown; the caller shapes the success. */
export const signInWith = (c: Context<AppEnv>, fields: SignInFields) =>
  signIn(c.var.service, { ...fields, audience: API_AUDIENCE });

import * as v from "valibot";
import type { Decimal } from "../ledger/money";
import type { ServiceContext } from "../wallet/context";
import { findWallet } from "../wallet/directory";
import { namesOneUser } from "../wallet/movements";
import { amountToMinor } from "../wallet/rules";
import { withAliases } from "./aliases";
import { amountRefusedText, invalidInput, SAME_USER_TEXT, WALLET_NOT_FOUND } from "./errors";
import { EMPTY } from "./fields";
import type { Input } from "./route";

type ObjectSchema = v.ObjectSchema<v.ObjectEntries, undefined>;

/**
 * Validates parameters against a route's valibot object schema and keeps the first message per
 * field, in the schema's key order (the order clients see); a declared alias is read as the field
 * it names (http/aliases.ts). A validator's own error objects never reach the wire.
 */
export function checkFields<S extends ObjectSchema>(
  schema: S,
  params: Record<string, unknown>,
):
  | { output: v.InferOutput<S>; errors?: undefined }
  | { output?: undefined; errors: Record<string, string> } {
  const read = withAliases(schema, params);
  const result = v.safeParse(schema, read, { abortPipeEarly: true });
  if (result.success) return { output: result.output };
  const found = new Map<string, string>();
  for (const issue of result.issues) {
    const field = String(issue.path?.[0]?.key ?? "");
    if (found.has(field)) continue;
    found.set(
      field,
      issue.kind === "schema" && issue.input === undefined && issue.type === "object"
        ? EMPTY
        : issue.message,
    );
  }
  return { errors: inKeyOrder(schema, Object.fromEntries(found)) };
}

/** Field errors in the schema's key order, the order clients see. */
const inKeyOrder = (schema: ObjectSchema, errors: Record<string, string>) =>
  Object.fromEntries(
    Object.keys(schema.entries).flatMap((k) => (errors[k] === undefined ? [] : [[k, errors[k]]])),
  );

/** `output`, or a 400 "invalid input" naming every field error, in the schema's key order. */
function orInvalid<T>(schema: ObjectSchema, output: T | undefined, errors: Record<string, string>) {
  if (!output || Object.keys(errors).length > 0) throw invalidInput(inKeyOrder(schema, errors));
  return output;
}

/** checkFields for envelope-A routes: the output, or a 400 "invalid input" keyed by field. */
export function parseFields<S extends ObjectSchema>(schema: S, params: Record<string, unknown>) {
  const { output, errors } = checkFields(schema, params);
  if (errors) throw invalidInput(errors);
  return output;
}

/** An envelope-A route's declared input: its schema, enforced by parseFields. */
export const fields = <S extends ObjectSchema>(schema: S): Input<v.InferOutput<S>> => ({
  schema,
  read: (_c, params) => parseFields(schema, params),
});

/** The input of a route that takes only its path's parameters (its body is read, and ignored). */
export const pathFields = <S extends ObjectSchema>(schema: S): Input<v.InferOutput<S>> => ({
  ...fields(schema),
  pathOnly: true,
});

/**
 * A field's value as its own schema entry reads it, when the schema has that field and found no
 * error in it: what a check across fields, or one that needs the database, may judge beside the
 * other field errors.
 */
function fieldValue(
  schema: { entries: v.ObjectEntries },
  params: Record<string, unknown>,
  errors: Record<string, string>,
  key: string,
): unknown {
  const entry = schema.entries[key];
  return entry && !errors[key] ? v.parse(entry, params[key]) : undefined;
}

/**
 * The wallet a well-formed `wallet_id` names; naming none, `wallet_id`'s field error, as a
 * malformed one has. Found through the service (`findWallet`): this module reads no database.
 */
async function walletNamed(ctx: ServiceContext, walletId: unknown, errors: Record<string, string>) {
  if (typeof walletId !== "string") return undefined;
  const wallet = await findWallet(ctx, walletId);
  if (!wallet) errors.wallet_id = WALLET_NOT_FOUND;
  return wallet;
}

/**
 * An envelope-A route's input with a check that needs the service (`besides`), made only when the
 * request is refused already: what it finds is named beside the other field errors, and a request
 * read whole pays nothing for it (its verb finds the same on its own).
 */
export const fieldsBeside = <S extends ObjectSchema>(
  schema: S,
  besides: (
    ctx: ServiceContext,
    field: (key: string) => unknown,
  ) => Promise<Record<string, string>>,
): Input<v.InferOutput<S>> => ({
  schema,
  read: async (c, params) => {
    const { output, errors = {} } = checkFields(schema, params);
    if (!output)
      Object.assign(
        errors,
        await besides(c.var.service, (key) => fieldValue(schema, params, errors, key)),
      );
    return orInvalid(schema, output, errors);
  },
});

/**
 * A reader route's input: its schema, and an administrator must name the user (a subscriber who
 * names none reads its own). On a refused request a well-formed `wallet_id` filter naming no
 * wallet is named beside the other field errors, as a malformed one is; read whole, the verb
 * refuses an unknown wallet itself.
 */
export const readerFields = <S extends ObjectSchema>(schema: S): Input<v.InferOutput<S>> => ({
  schema,
  read: async (c, params) => {
    const { output, errors = {} } = checkFields(schema, params);
    if (params.user_id === undefined && c.get("principal").role === "administrator")
      errors.user_id = EMPTY;
    if (Object.keys(errors).length > 0)
      await walletNamed(c.var.service, fieldValue(schema, params, errors, "wallet_id"), errors);
    return orInvalid(schema, output, errors);
  },
});

type MoneySchema = v.ObjectSchema<
  {
    wallet_id: v.GenericSchema<unknown, string>;
    amount: v.GenericSchema<unknown, Decimal>;
  } & v.ObjectEntries,
  undefined
>;

/**
 * A money movement's fields and every field error, the ones only the wallet can judge included
 * (does it exist, does the amount fit its decimals), and a transfer naming one user at both ends
 * (keyed `to_user_id`), so that a transfer, alone or a batch's leg, names its faults together.
 */
export async function checkMoneyFields<S extends MoneySchema>(
  schema: S,
  params: Record<string, unknown>,
  ctx: ServiceContext,
) {
  const { output, errors = {} } = checkFields(schema, params);
  const wallet = await walletNamed(ctx, fieldValue(schema, params, errors, "wallet_id"), errors);
  if (wallet && !errors.amount) {
    // The schema has read the amount (a string or a number, numeric and positive).
    const minor = amountToMinor(params.amount as string | number, wallet, "refuse-excess-places");
    if (typeof minor !== "number") errors.amount = amountRefusedText(minor, wallet);
  }
  // Each end read by its own field, so the check stands beside any other field's error.
  const from = fieldValue(schema, params, errors, "from_user_id");
  const to = fieldValue(schema, params, errors, "to_user_id");
  if (typeof from === "number" && typeof to === "number" && namesOneUser({ id: from }, { id: to }))
    errors.to_user_id ??= SAME_USER_TEXT;
  return { output, errors };
}

/**
 * A money route's declared input: its schema, and the wallet's own checks reported beside it, every
 * field error together in schema key order (a 400). The verb finds the wallet and converts the
 * amount again, as its own rules; these only word the errors a client sends at once.
 */
export const moneyFields = <S extends MoneySchema>(schema: S): Input<v.InferOutput<S>> => ({
  schema,
  read: (c, params) => parseMoneyFields(schema, params, c.var.service),
});

/**
 * checkMoneyFields' output, or a 400 "invalid input" naming every field error in schema key order:
 * a money route's reading, and the console's of its money forms.
 */
export async function parseMoneyFields<S extends MoneySchema>(
  schema: S,
  params: Record<string, unknown>,
  ctx: ServiceContext,
) {
  const { output, errors } = await checkMoneyFields(schema, params, ctx);
  return orInvalid(schema, output, errors);
}

import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../env";
import type { Decimal } from "../ledger/money";
import type { ServiceContext } from "../wallet/context";
import { findWallet } from "../wallet/directory";
import { amountToMinor } from "../wallet/rules";
import { amountRefusedText, invalidInput, WALLET_NOT_FOUND } from "./errors";
import type { Params } from "./params";
import { checkFields, inKeyOrder } from "./validation";

type MoneySchema = v.ObjectSchema<
  {
    wallet_id: v.GenericSchema<unknown, string>;
    amount: v.GenericSchema<unknown, Decimal>;
  } & v.ObjectEntries,
  undefined
>;

/**
 * A money movement's fields and every field error, the ones only the wallet can judge included
 * (does it exist, does the amount fit its decimals). The wallet is found through the service
 * (`findWallet`); this module reads no database itself.
 */
export async function checkMoneyFields<S extends MoneySchema>(
  schema: S,
  params: Record<string, unknown>,
  ctx: ServiceContext,
) {
  const { output, errors = {} } = checkFields(schema, params);
  const walletId = errors.wallet_id
    ? undefined
    : v.parse(schema.entries.wallet_id, params.wallet_id);
  const wallet = walletId === undefined ? undefined : await findWallet(ctx, walletId);
  if (walletId !== undefined && !wallet) errors.wallet_id = WALLET_NOT_FOUND;
  if (wallet && !errors.amount) {
    // The schema has read the amount (a string or a number, numeric and positive).
    const minor = amountToMinor(params.amount as string | number, wallet, "refuse-excess-places");
    if (typeof minor !== "number") errors.amount = amountRefusedText(minor, wallet);
  }
  return { output, errors };
}

/**
 * A money route's declared input: its schema, and the wallet's own checks reported beside it, every
 * field error together in schema key order (a 400). The verb finds the wallet and converts the
 * amount again, as its own rules; these only word the errors a client sends at once.
 */
export const moneyFields = <S extends MoneySchema>(schema: S) => ({
  schema,
  read: async (c: Context<AppEnv>, params: Params) => {
    const { output, errors } = await checkMoneyFields(schema, params, c.var.service);
    if (!output || Object.keys(errors).length > 0) throw invalidInput(inKeyOrder(schema, errors));
    return output;
  },
});

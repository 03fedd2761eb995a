import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../../env";
import { invalidInput } from "../../http/errors";
import {
  documented,
  EMPTY,
  EntryParams,
  movementOf,
  pathIdField,
  ReverseBatchParams,
  requestIdField,
  TransferParams,
  userIdField,
} from "../../http/fields";
import type { Params } from "../../http/params";
import { isPhpArray } from "../../http/php-vars";
import type { Input } from "../../http/route";
import { checkFields, checkMoneyFields } from "../../http/validation";
import { type BatchInput, type BatchOperation, MAX_OPERATIONS } from "../../wallet/batches";
import { PAGE_FIELDS } from "../transactions/schemas";

/** An operation's fields are its single route's but the request_id, in the same order of errors. */
const EntryOperation = v.object({
  ...v.omit(EntryParams, ["request_id"]).entries,
  user_id: userIdField(), // required here: no missing-as-zero quirk
});

const TransferOperation = v.object(v.omit(TransferParams, ["request_id"]).entries);

const TYPES = ["credit", "debit", "transfer"] as const;
const TYPE_TEXT = "type must be credit, debit or transfer";
const LIST_TEXT = "operations must be a list of operations";
const MAX_TEXT_OPS = `operations must hold at most ${MAX_OPERATIONS} operations`;

const balancedField = v.pipe(
  v.union([v.boolean(), v.string(), v.number()], "balanced must be true or false"),
  v.transform((b) => String(b).toLowerCase()),
  v.picklist(["true", "false", "1", "0"], "balanced must be true or false"),
  v.transform((b) => b === "true" || b === "1"),
  documented({ type: "boolean" }),
);

/** The body as documented (OpenAPI); `readBatchInput` enforces it, naming each operation's fields. */
const BatchParams = v.object({
  request_id: requestIdField,
  balanced: v.optional(
    v.pipe(
      balancedField,
      v.description("`true`: refused unless credits and debits are equal in each wallet"),
    ),
    false,
  ),
  operations: v.pipe(
    v.array(
      v.variant(
        "type",
        [
          v.object({ type: v.picklist(["credit", "debit"], TYPE_TEXT), ...EntryOperation.entries }),
          v.object({ type: v.literal("transfer", TYPE_TEXT), ...TransferOperation.entries }),
        ],
        TYPE_TEXT,
      ),
      LIST_TEXT,
    ),
    v.minLength(1, EMPTY),
    v.maxLength(MAX_OPERATIONS, MAX_TEXT_OPS),
  ),
});

const TopParams = v.omit(BatchParams, ["operations"]);

/**
 * PHP's form names (`operations[2][amount]=9.50`), as the array PHP made of them (nested names too:
 * `operations[0][note][x]` is a note that is not text, refused, never dropped), as the list a JSON
 * body sends: indexed by their integer keys, a gap an empty operation. A key PHP keeps apart from
 * those (`operations[00]`, `operations[a]`) makes no list, as a JSON object is not one: read as an
 * index, `operations[00][user_id]` would overwrite operation 0's user.
 */
function formOperations(sent: Record<string, unknown>): unknown {
  const ops: unknown[] = [];
  for (const [key, op] of Object.entries(sent)) {
    if (!/^(0|[1-9][0-9]*)$/.test(key)) return sent;
    const i = Number(key);
    if (i > MAX_OPERATIONS) return new Array(MAX_OPERATIONS + 1); // refused by its length alone
    ops[i] = op;
  }
  return Array.from(ops, (op) => op ?? {});
}

/** Operation `i`'s fields and errors, keyed `operations[i].<field>`. */
async function readOperation(
  c: Context<AppEnv>,
  raw: unknown,
  at: string,
  errors: Record<string, string>,
): Promise<BatchOperation | undefined> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    errors[at] = "each operation must be an object";
    return undefined;
  }
  // A JSON null counts as a missing field, as in every body.
  const op = Object.fromEntries(Object.entries(raw).filter(([, x]) => x !== null));
  const type = typeof op.type === "string" ? op.type.toLowerCase() : op.type;
  if (!TYPES.includes(type as never)) {
    errors[`${at}.type`] = type === undefined || type === "" ? EMPTY : TYPE_TEXT;
    return undefined;
  }
  const schema = type === "transfer" ? TransferOperation : EntryOperation;
  const { output, errors: found } = await checkMoneyFields(schema, op, c.var.service);
  for (const key of Object.keys(schema.entries))
    if (found[key] !== undefined) errors[`${at}.${key}`] = found[key];
  if (!output || Object.keys(found).length > 0) return undefined;
  const common = movementOf(output);
  return "from_user_id" in output
    ? {
        ...common,
        type: "transfer",
        from: { id: output.from_user_id },
        to: { id: output.to_user_id },
      }
    : { ...common, type: type as "credit" | "debit", user: { id: output.user_id } };
}

/**
 * A batch's body: its request_id and `balanced`, then each operation validated as its single route
 * validates it (the wallet judging the amount), every error reported together, named by operation.
 */
async function readBatchInput(c: Context<AppEnv>, params: Params): Promise<BatchInput> {
  const { output, errors = {} } = checkFields(TopParams, params);
  // A query's or form's `operations[i][field]` names are indexed (past the 100th is too many).
  const raw = isPhpArray(params.operations) ? formOperations(params.operations) : params.operations;
  const ops: BatchOperation[] = [];
  if (raw === undefined || raw === "") errors.operations = EMPTY;
  else if (!Array.isArray(raw)) errors.operations = LIST_TEXT;
  else if (raw.length === 0) errors.operations = EMPTY;
  else if (raw.length > MAX_OPERATIONS) errors.operations = MAX_TEXT_OPS;
  else
    for (const [i, item] of raw.entries()) {
      const op = await readOperation(c, item, `operations[${i}]`, errors);
      if (op) ops.push(op);
    }
  if (!output || Object.keys(errors).length > 0) throw invalidInput(errors);
  return { requestId: output.request_id, balanced: output.balanced, operations: ops };
}

export const batchFields: Input<BatchInput> = { schema: BatchParams, read: readBatchInput };

export const ReverseBatchRouteParams = v.object({ id: pathIdField, ...ReverseBatchParams.entries });

export const BatchListParams = v.object({ user_id: userIdField(), ...PAGE_FIELDS });

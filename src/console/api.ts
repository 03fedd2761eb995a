// How the console calls the service: each screen calls the verbs (src/wallet/) itself, as the
// operator its cookie names (session.ts sets the request's principal, which the service context
// reads), on the request's own D1 session; a refusal becomes a value the page words.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError, databaseBusy, refusalAnswer } from "../http/errors";
import { EMPTY } from "../http/fields";
import { wordGone } from "../wallet/faults";
import { type RefusalReason, refusalOf } from "../wallet/refusal";
import type { ConsoleEnv } from "./env";
import { back } from "./page";
import type { Notice } from "./views";

/** The console's words for a user that does not exist (the API's are the plugin's). */
export const noUserText = (userId: string | number) => `No user ${userId}.`;

/** A console request as the app's: its env is the app's, with the operator's session beside it. */
export const appContext = (c: Context<ConsoleEnv>) => c as unknown as Context<AppEnv>;

/** What a verb answered, or its refusal in wallet/v1's words and, from the service, its reason. */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; refusal: ApiError; reason?: RefusalReason };

/**
 * Runs a verb for a page: a refusal becomes a value the page words; a fault stays a fault. A write
 * refused because a user or wallet was deleted through another isolate is told as that refusal.
 */
export async function attempt<T>(
  c: Context<ConsoleEnv>,
  verb: () => Promise<T>,
): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await verb() };
  } catch (err) {
    const refused = await wordGone(c.var.service, err);
    // The API's words for an unknown user are the plugin's ("Invalid User credentials: Unable to
    // reach 7"), which tell an operator nothing about credentials.
    const reason = refusalOf(refused);
    if (reason?.code === "user_not_found")
      return { ok: false, refusal: new ApiError(404, noUserText(reason.userId)), reason };
    const refusal = refusalAnswer(refused);
    // A fault stays a fault: the look-up's own, if finding what was gone failed.
    if (!refusal) throw refused;
    return { ok: false, refusal, reason };
  }
}

/**
 * `attempt` for a money form: a busy database too is told as a refusal, since the outcome is
 * unknown, so the form comes back with its key, and sent again moves the money at most once.
 */
export async function attemptMoney<T>(
  c: Context<ConsoleEnv>,
  verb: () => Promise<T>,
): Promise<Outcome<T>> {
  try {
    return await attempt(c, verb);
  } catch (err) {
    const busy = databaseBusy(appContext(c), err);
    if (!busy) throw err;
    return { ok: false, refusal: busy };
  }
}

/**
 * A refusal in words: its message and what its `error` names. A text that says no field ("Field
 * Cannot be empty") or only a number (an entry's id) is named by its field; one that repeats the
 * message, or another detail ("voided" beside "Hold 7 is voided"), is left out.
 */
export function refusalText({ message, error }: ApiError) {
  const named = (field: string, d: unknown) => {
    if (d === EMPTY) return [`${field}: ${EMPTY}`];
    if (d === message) return [];
    return /^[0-9]+$/.test(String(d)) ? [`${field} ${d}`] : [d].flat(2);
  };
  const details =
    error && typeof error === "object"
      ? Object.entries(error as Record<string, unknown>)
          .flatMap(([field, d]) => (Array.isArray(error) ? [d].flat(2) : named(field, d)))
          .map((d) =>
            typeof d === "object"
              ? Object.values(d as object)
                  .flat()
                  .join(", ")
              : String(d),
          )
          .filter(
            (d, i, all) => !all.some((other, j) => j !== i && other !== d && other.includes(d)),
          )
          .join("; ")
      : "";
  // A detail that already says the message ("Too many failed sign-in attempts: try again…") is all.
  if (!details || details === message) return message;
  return details.startsWith(`${message}:`) ? details : `${message}: ${details}`;
}

/**
 * Each field a refusal names with its own words, from its `error` (an object by field, or a list
 * of them): `{amount: "amount requires a valid amount"}`.
 */
export const fieldWords = ({ error }: ApiError): Record<string, string> =>
  Object.fromEntries(
    [error]
      .flat()
      .flatMap((e) =>
        e && typeof e === "object" && !Array.isArray(e)
          ? Object.entries(e).map(([name, d]) => [name, [d].flat(2).map(String).join("; ")])
          : [],
      ),
  );

/**
 * A redirect back to a page that says what was refused ("Reversal refused. …") and why; `refused`,
 * the form's fields to draw it again with, and the fields it is about: those `at` names, else those
 * the refusal names (a field the form has not, `txn_id`, marks none), each with the words drawn
 * under it: `why` gives them, else the refusal's for that field, else its whole reason.
 */
export const backRefused = (
  c: Context<ConsoleEnv>,
  to: string,
  what: string,
  refusal: ApiError,
  refused?: NonNullable<Notice>["refused"],
) => {
  const at = refused && (refused.at ?? Object.keys(fieldWords(refusal)));
  const words = { ...fieldWords(refusal), ...refused?.why };
  return back(c, to, {
    kind: "error",
    text: `${what} refused. ${refusalText(refusal)}`,
    refused: refused &&
      at && {
        ...refused,
        at,
        why: Object.fromEntries(at.map((name) => [name, words[name] ?? refusalText(refusal)])),
      },
  });
};

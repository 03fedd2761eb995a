// The first administrator for `npm run deploy`: given by flags and WALLET_ADMIN_PASSWORD, or asked
// for on a terminal. The password is never a flag (it would stay in the shell's history).
import { type AdminAccount, accountProblem } from "./admin";
import { ask, askHidden } from "./prompt";

export type AdminGiven = Partial<AdminAccount>;

/** The one line a run without a terminal stops with when it has no administrator to create. */
export const ADMIN_NEEDED =
  "No administrator able to sign in yet: pass --admin-username NAME --admin-email ADDRESS (npm run deploy -- …) " +
  "and the password in WALLET_ADMIN_PASSWORD; nothing was uploaded.";

/** Asks until the answer passes `check` (the service's own limits). */
async function askValid(question: string, check: (answer: string) => string | undefined) {
  for (;;) {
    const answer = await ask(question);
    const problem = check(answer);
    if (!problem) return answer;
    console.log(`  ${problem}`);
  }
}

/** A password typed twice without echo, until it passes the service's rule and the two agree. */
export async function askPassword() {
  for (;;) {
    const password = await askHidden("Password (not shown): ");
    const problem = accountProblem({ password });
    if (problem) {
      console.log(`  ${problem}`);
      continue;
    }
    if ((await askHidden("Password again: ")) === password) return password;
    console.log("  the two passwords differ");
  }
}

/**
 * The administrator to create: what was given, the rest asked for when stdin is a terminal;
 * null when something is missing and there is no one to ask.
 */
export async function adminAccount(given: AdminGiven, interactive: boolean) {
  const { username, email, password } = given;
  if (username && email && password) return { username, email, password };
  if (!interactive) return null;
  console.log(
    "The database has no administrator able to sign in yet: the first one (the console's sign-in).",
  );
  return {
    username: username || (await askValid("Username: ", (u) => accountProblem({ username: u }))),
    email: email || (await askValid("E-mail: ", (e) => accountProblem({ email: e }))),
    password: password || (await askPassword()),
  };
}

// Odd data a real WordPress site can hold, read by the importer (scripts/import): each case states
// the site's data, what the plugin and the service make of it, and what the import must do. These
// are what an attack on the importer found it getting wrong.
import { describe, expect, it } from "vitest";
import { importFromText } from "../scripts/import/wordpress";
import { SITE_OPTIONS, siteDump } from "./site-dump";

const NGN = [{ id: "ngn", decimals: 2 }];
const CREDITS = [
  { user: 2, wallet: "ngn", amount: "10" },
  { user: 3, wallet: "ngn", amount: "20" },
];

describe("usernames equal only under Unicode (not ASCII) letter case", () => {
  // docs/migrating.md: a user is skipped when its username is another user's "equal but for ASCII
  // letter case or spaces at either end, which sign-in ignores". Sign-in and the database compare
  // usernames with SQLite's lower(), which folds A-Z only (src/db/user-texts.ts sameText, the
  // users_username_ci index), so "Ωmega" and "ωmega" are two accounts here, each signing in with its
  // own password. Folding every script's letters (String#toLowerCase) read the second as a
  // duplicate, skipped it with its credit, and refused the whole import.
  for (const [first, second] of [
    ["Ωmega", "ωmega"],
    ["Émile", "émile"],
    ["\u212Aelvin", "kelvin"], // KELVIN SIGN, which toLowerCase() turns into an ASCII k
  ]) {
    it(`imports both ${first} and ${second}: sign-in tells them apart`, () => {
      const site = siteDump(NGN, CREDITS, 2, { 2: first!, 3: second! });
      const { report } = importFromText(site, { options: SITE_OPTIONS });
      expect(report.users.skipped.byReason).toEqual({});
      expect(report.transactions.skipped.total).toBe(0);
      expect(report.refused).toBe(false);
      expect(report.expectedBalances.map((b) => [b.userId, b.balanceMinor])).toEqual([
        [2, 1000],
        [3, 2000],
      ]);
    });
  }
});

describe("a wallet's decimals spelled as JavaScript reads a number, not PHP", () => {
  // Number() takes the hex, binary and octal prefixes: "0x2" is 2. PHP, which ran the plugin's
  // number_format and (int), reads "0x2", "0b10" and "0o2" as 0 (their leading digit), so the site
  // showed that wallet with no decimals at all. Such a spelling is refused and named, as "2.5" is. No admin screen writes
  // one, but a hand edit in phpMyAdmin can.
  for (const spelled of ["0x2", "0b10", "0o2"]) {
    it(`does not read decimals ${JSON.stringify(spelled)} as 2`, () => {
      const site = siteDump(NGN, [{ user: 2, wallet: "ngn", amount: "5" }], 1).replace(
        "'rimplenet_wallet_decimal','2'",
        `'rimplenet_wallet_decimal','${spelled}'`,
      );
      expect(site).toContain(`'rimplenet_wallet_decimal','${spelled}'`);
      const { report } = importFromText(site, { options: SITE_OPTIONS });
      expect(report.wallets.skipped.byReason).toEqual({
        [`wallet ngn: decimals ${JSON.stringify(spelled)} not in 0–8`]: 1,
      });
    });
  }
});

import { describe, expect, it } from "vitest";
import { type SeedOutcome, seedLine, signsInWith } from "../../scripts/lib/admin";
import { hashPassword } from "../../src/auth/password";
import { phpassCrypt } from "../../src/auth/wordpress-hashes";

// npm run dev prints the dev password only for an administrator it still signs in to.
describe("signsInWith (npm run dev's local administrator)", () => {
  it("accepts the password of the service's own hash, and refuses another", async () => {
    const hash = await hashPassword("wallet-admin");
    expect(await signsInWith(hash, "wallet-admin")).toBe(true);
    expect(await signsInWith(hash, "changed-since")).toBe(false);
  });

  it("checks an imported WordPress hash, as a sign-in would", async () => {
    const hash = phpassCrypt("wallet-admin", "$P$BabcdefgH")!;
    expect(await signsInWith(hash, "wallet-admin")).toBe(true);
    expect(await signsInWith(hash, "its-own-password")).toBe(false);
  });
});

describe("seedLine (what npm run dev says of its administrator)", () => {
  const admin = { username: "admin", email: "admin@example.com", password: "wallet-admin" };
  const none: SeedOutcome = {
    created: false,
    devAdminExists: false,
    devEmailTaken: false,
    adminCanSignIn: true,
  };

  it("names the administrator it made or found, and one the dev password no longer opens", () => {
    expect(seedLine(admin, { ...none, created: true, devAdminExists: true })).toBe(
      'Local administrator "admin" created.',
    );
    expect(seedLine(admin, { ...none, devAdminExists: true, devEmailTaken: true })).toBe(
      'Local administrator "admin@example.com" already exists; left as it is.',
    );
    expect(seedLine(admin, { ...none, devEmailTaken: true })).toBe(
      'Local administrator "admin@example.com" already exists with a password of its own; left as it is.',
    );
    // Not only an import's: an earlier run's under other WALLET_ADMIN_* values, or admin:create's.
    expect(seedLine(admin, none)).toBe(
      'The local database has administrators already, none of them "admin@example.com": none added ' +
        "(WALLET_ADMIN_* make one only in a database without any; npm run admin:create -- --local makes another).",
    );
  });

  it("says how to make one when every administrator is an imported spam user", () => {
    for (const devEmailTaken of [false, true])
      expect(seedLine(admin, { ...none, devEmailTaken, adminCanSignIn: false })).toBe(
        "The local database's administrators (an imported site's) cannot sign in, as their network " +
          "marked them as spam: make one with npm run admin:create -- --local --username NAME --email ADDRESS.",
      );
  });
});

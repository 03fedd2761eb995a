import { describe, expect, it } from "vitest";
import { signsInWith } from "../../scripts/lib/admin";
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

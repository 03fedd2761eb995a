// The administrator tools' checks of a new account (admin:create, deploy's first administrator,
// the dev seed): the service's own rules for a username, an e-mail and a password, as POST /users
// applies them.
import { describe, expect, it } from "vitest";
import { accountProblem } from "../../scripts/lib/admin";

describe("accountProblem", () => {
  it("refuses a username POST /users refuses: non-ASCII letters, tags, invisible characters", () => {
    for (const username of [
      "grâce",
      "Ærøskøbing",
      "gr<b>ce",
      "grace\u202e",
      "grace'o",
      "日本語です",
    ])
      expect(accountProblem({ username }), username).toBe(
        "username must be 4 to 60 of ASCII letters, digits and _ . - @",
      );
    for (const username of ["grace", "Grace.Hopper-1_", "grace@example.com", "g".repeat(60)])
      expect(accountProblem({ username }), username).toBeUndefined();
    for (const username of ["gra", "g".repeat(61), "grace hopper"])
      expect(accountProblem({ username }), username).toBeDefined();
  });

  it("refuses an e-mail POST /users refuses (WordPress's is_email)", () => {
    for (const email of [
      "grace@exämple.com",
      '"grace"@example.com',
      "grace@-example.com",
      "<grace>@example.com",
      "a@b.c",
      `${"g".repeat(95)}@example.com`,
    ])
      expect(accountProblem({ email }), email).toBe("e-mail is not valid");
    for (const email of ["grace@example.com", "grace+ops@mail.example.co.uk"])
      expect(accountProblem({ email }), email).toBeUndefined();
  });

  it("counts a password's characters as POST /users does: an emoji is one", () => {
    expect(accountProblem({ password: "😀".repeat(5) })).toBe(
      "password must have at least 6 characters",
    );
    expect(accountProblem({ password: "😀".repeat(257) })).toBe(
      "password must have at most 256 characters",
    );
    for (const password of ["😀".repeat(6), "😀".repeat(256), "secret"])
      expect(accountProblem({ password }), password).toBeUndefined();
  });
});

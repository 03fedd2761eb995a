import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  type Json,
  makeAdmin,
  makeKey,
  makeUser,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const NEW_PASSWORD = "s3cret-pass";

const createUser = (admin: TestUser, body: unknown) =>
  call("POST", "/users", { auth: admin.bearer, body });

const newUserBody = (overrides: Json = {}) => {
  const name = unique("nu");
  return {
    username: name,
    user_email: `${name}@example.test`,
    user_password: NEW_PASSWORD,
    ...overrides,
  };
};

/** The exact envelope-B validation failure the contract fixes (section 8). */
const validationError = (error: Json[]) => ({
  status_code: 400,
  status: "failed",
  message: "Validation error",
  data: [],
  error,
});

describe("POST /users", () => {
  it("creates a subscriber and answers 201 with only its id", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, newUserBody({ first_name: "Ada", last_name: "Lovelace" }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      status_code: 201,
      status: true,
      message: "User created successfully",
      data: { id: expect.any(Number) },
      error: [],
    });
    expect(Number.isInteger(res.body.data.id)).toBe(true);
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  });

  it("creates a user who can then log in and is a subscriber", async () => {
    const admin = await makeAdmin();
    const body = newUserBody();
    const created = await createUser(admin, body);
    expect(created.status).toBe(201);
    const login = await call("POST", "/users/login", {
      body: { user_email: body.username, user_password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({
      user_id: created.body.data.id,
      username: body.username,
      user_email: body.user_email,
    });
    const payload = JSON.parse(
      atob(login.body.data.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")),
    );
    expect(payload.user.roles).toEqual(["subscriber"]);
  });

  it("accepts a form-encoded body", async () => {
    const admin = await makeAdmin();
    const body = newUserBody();
    const res = await createUser(admin, new URLSearchParams(body));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(Number) });
  });

  it("with an empty body answers 400 with every field required, in order", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username is required"] },
        { user_email: ["user_email is required"] },
        { user_pass: ["user_password is required"] },
      ]),
    );
  });

  it("treats empty strings and JSON null as missing fields", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, { username: "", user_email: null, user_password: "" });
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username is required"] },
        { user_email: ["user_email is required"] },
        { user_pass: ["user_password is required"] },
      ]),
    );
  });

  it("with a short username containing a space answers both username texts in order", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, newUserBody({ username: "a b" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username must not contain space", "username must be atleast 4 chars"] },
      ]),
    );
  });

  it("with a 3-character username answers 400 username must be atleast 4 chars", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, newUserBody({ username: "abc" }));
    expect(res.body).toEqual(
      validationError([{ user_login: ["username must be atleast 4 chars"] }]),
    );
  });

  it("takes a username of 60 characters and refuses one of 61, writing nothing", async () => {
    const admin = await makeAdmin();
    const name = (length: number) => unique("nu").padEnd(length, "a");
    const before = await tableCounts();
    const long = await createUser(admin, newUserBody({ username: name(61) }));
    expect(long.body).toEqual(
      validationError([{ user_login: ["username must be at most 60 chars"] }]),
    );
    expect(await tableCounts()).toEqual(before);
    const res = await createUser(admin, newUserBody({ username: name(60) }));
    expect(res.status, res.text).toBe(201);
  });

  it("with a taken username in other case answers 400 username already taken", async () => {
    const admin = await makeAdmin();
    const existing = await makeUser();
    const res = await createUser(admin, newUserBody({ username: existing.username.toUpperCase() }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationError([{ user_login: ["username already taken"] }]));
  });

  it("with a taken username containing a space answers the space text before the taken text", async () => {
    const admin = await makeAdmin();
    const existing = await makeUser("subscriber", unique("has space"));
    const res = await createUser(admin, newUserBody({ username: existing.username.toUpperCase() }));
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username must not contain space", "username already taken"] },
      ]),
    );
  });

  it("with a malformed e-mail answers 400 Invalid user_email", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, newUserBody({ user_email: "not-an-email" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationError([{ user_email: ["Invalid user_email"] }]));
  });

  it("refuses what WordPress's is_email refuses: a label with a hyphen at an end, under 6 characters", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    const local = unique("m");
    for (const email of [
      `${local}@-example.test`,
      `${local}@example-.test`,
      `${local}@example.-test`,
      `${local}@example.test-`,
      `${local}@-.test`,
      "a@b.c",
      `${local}@localhost`, // one label: is_email asks for two
      `${local.padEnd(88, "m")}@example.test`, // 101 characters: past the user_email column
    ]) {
      const res = await createUser(admin, newUserBody({ user_email: email }));
      expect(res.status, email).toBe(400);
      expect(res.body, email).toEqual(validationError([{ user_email: ["Invalid user_email"] }]));
    }
    expect(await tableCounts()).toEqual(before);
    // A hyphen inside a label, a one-letter label and exactly 6 characters are addresses there.
    for (const email of [
      `${local}@my-example.test`,
      `${local}@x.test`,
      `${local.padEnd(87, "n")}@example.test`, // 100 characters, the column's longest
      `${local.slice(-1)}@b.cd`, // 6 characters, the shortest
    ]) {
      const res = await createUser(admin, newUserBody({ user_email: email }));
      expect(res.status, `${email}: ${res.text}`).toBe(201);
    }
  });

  it("reads a new user's e-mail without the white space around it", async () => {
    const admin = await makeAdmin();
    const body = newUserBody();
    const res = await createUser(admin, { ...body, user_email: ` ${body.user_email}\t` });
    expect(res.status, res.text).toBe(201);
    const again = await createUser(admin, newUserBody({ user_email: body.user_email }));
    expect(again.body).toEqual(validationError([{ user_email: ["user_email already taken"] }]));
  });

  it("finds a taken e-mail sent with white space around it beside another field's error", async () => {
    const admin = await makeAdmin();
    const taken = await makeUser();
    const res = await createUser(
      admin,
      newUserBody({ username: "abc", user_email: ` ${taken.email}\t` }),
    );
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username must be atleast 4 chars"] },
        { user_email: ["user_email already taken"] },
      ]),
    );
  });

  it("takes a first_name and last_name of 100 characters and refuses 101, writing nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    const long = await createUser(
      admin,
      newUserBody({ first_name: "f".repeat(101), last_name: "l".repeat(101) }),
    );
    expect(long.body).toEqual(
      validationError([
        { first_name: ["first_name must be at most 100 characters"] },
        { last_name: ["last_name must be at most 100 characters"] },
      ]),
    );
    expect(await tableCounts()).toEqual(before);
    const res = await createUser(
      admin,
      newUserBody({ first_name: "f".repeat(100), last_name: "l".repeat(100) }),
    );
    expect(res.status, res.text).toBe(201);
  });

  it("refuses a username with a character WordPress's validate_username refuses, writing nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    for (const username of [`${unique("a")}+b`, `${unique("a")}/b`, `${unique("a")}#b`]) {
      const res = await createUser(admin, newUserBody({ username }));
      expect(res.body, username).toEqual(
        validationError([
          { user_login: ["username may only contain letters, numbers and _ . - @"] },
        ]),
      );
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses non-ASCII usernames and e-mails, which SQLite could not compare case-insensitively", async () => {
    const admin = await makeAdmin();
    const res = await createUser(
      admin,
      newUserBody({ username: `ärger${unique("")}`, user_email: `é${unique("")}@example.test` }),
    );
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username may only contain letters, numbers and _ . - @"] },
        { user_email: ["Invalid user_email"] },
      ]),
    );
  });

  it("counts a username's characters too: two emoji are two, short as well as not ASCII", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, newUserBody({ username: "😀😀" }));
    expect(res.body).toEqual(
      validationError([
        {
          user_login: [
            "username may only contain letters, numbers and _ . - @",
            "username must be atleast 4 chars",
          ],
        },
      ]),
    );
  });

  it("with a taken e-mail in other case answers 400 user_email already taken", async () => {
    const admin = await makeAdmin();
    const existing = await makeUser();
    const res = await createUser(admin, newUserBody({ user_email: existing.email.toUpperCase() }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationError([{ user_email: ["user_email already taken"] }]));
  });

  it("with a 5-character password answers 400 Please enter at least 6 characters", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, newUserBody({ user_password: "12345" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        { user_pass: ["Please enter at least 6 characters for the user_password"] },
      ]),
    );
  });

  it("counts a password's characters, not its UTF-16 units, at both ends", async () => {
    const admin = await makeAdmin();
    // An emoji is one character and two UTF-16 units.
    const short = await createUser(admin, newUserBody({ user_password: "😀".repeat(5) }));
    expect(short.body).toEqual(
      validationError([
        { user_pass: ["Please enter at least 6 characters for the user_password"] },
      ]),
    );
    const long = await createUser(admin, newUserBody({ user_password: "😀".repeat(257) }));
    expect(long.body).toEqual(
      validationError([{ user_pass: ["user_password must be at most 256 characters"] }]),
    );
    const body = newUserBody({ user_password: "😀".repeat(256) });
    const made = await createUser(admin, body);
    expect(made.status).toBe(201);
    const login = await call("POST", "/users/login", {
      body: { user_email: body.user_email, user_password: body.user_password },
    });
    expect(login.status).toBe(200);
  });

  it("reports errors of several fields together, in field order", async () => {
    const admin = await makeAdmin();
    const existing = await makeUser();
    const res = await createUser(admin, {
      username: existing.username.toUpperCase(),
      user_email: "bad@",
      user_password: "123",
    });
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username already taken"] },
        { user_email: ["Invalid user_email"] },
        { user_pass: ["Please enter at least 6 characters for the user_password"] },
      ]),
    );
  });

  it("reports a taken username and a taken e-mail together", async () => {
    const admin = await makeAdmin();
    const existing = await makeUser();
    const res = await createUser(
      admin,
      newUserBody({ username: existing.username, user_email: existing.email }),
    );
    expect(res.body).toEqual(
      validationError([
        { user_login: ["username already taken"] },
        { user_email: ["user_email already taken"] },
      ]),
    );
  });

  it("writes nothing when it refuses a creation", async () => {
    const admin = await makeAdmin();
    const existing = await makeUser();
    const before = await tableCounts();
    const refused = [
      await createUser(admin, newUserBody({ username: existing.username.toUpperCase() })),
      await createUser(admin, newUserBody({ user_email: existing.email })),
      await createUser(admin, newUserBody({ user_password: "short" })),
      await call("POST", "/users", { body: newUserBody() }),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 401]);
    expect(await tableCounts()).toEqual(before);
  });

  it("lets exactly one of two concurrent creations of the same username succeed", async () => {
    const admin = await makeAdmin();
    const username = unique("race");
    const replies = await Promise.all([
      createUser(admin, newUserBody({ username })),
      createUser(admin, newUserBody({ username: username.toUpperCase() })),
    ]);
    expect(replies.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(replies.find((r) => r.status === 400)!.body).toEqual(
      validationError([{ user_login: ["username already taken"] }]),
    );
  });

  it("lets exactly one of two concurrent creations of the same e-mail succeed", async () => {
    const admin = await makeAdmin();
    const email = `${unique("race")}@example.test`;
    const replies = await Promise.all([
      createUser(admin, newUserBody({ user_email: email })),
      createUser(admin, newUserBody({ user_email: email.toUpperCase() })),
    ]);
    expect(replies.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(replies.find((r) => r.status === 400)!.body).toEqual(
      validationError([{ user_email: ["user_email already taken"] }]),
    );
  });

  it("never returns the password or its stored hash", async () => {
    const admin = await makeAdmin();
    const body = newUserBody({ user_password: "unmistakable-password-42" });
    const res = await createUser(admin, body);
    expect(res.status).toBe(201);
    const row = await env.DB.prepare("SELECT password_hash FROM users WHERE id = ?")
      .bind(res.body.data.id)
      .first<{ password_hash: string }>();
    expect(row!.password_hash).not.toContain("unmistakable-password-42");
    expect(res.text).not.toContain("unmistakable-password-42");
    expect(res.text).not.toContain(row!.password_hash);
    const refused = await createUser(admin, { ...body, username: "x y" });
    expect(refused.text).not.toContain("unmistakable-password-42");
  });

  it("from a subscriber answers 403 in envelope B", async () => {
    const subscriber = await makeUser();
    const res = await createUser(subscriber, newUserBody());
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      status_code: 403,
      status: "failed",
      message: "Permission denied",
      data: [],
      error: { unauthorize: "Request is not authorized" },
    });
  });

  it("checks permission before validation: a subscriber's or read key's invalid body answers 403", async () => {
    const admin = await makeAdmin();
    const subscriber = await makeUser();
    const { header } = await makeKey(admin, "read");
    for (const auth of [subscriber.bearer, header]) {
      const res = await call("POST", "/users", { auth, body: {} });
      expect(res.body).toEqual({
        status_code: 403,
        status: "failed",
        message: "Permission denied",
        data: [],
        error: { unauthorize: "Request is not authorized" },
      });
    }
  });

  it("lets an administrator's write key create a user", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "write");
    const res = await call("POST", "/users", { auth: header, body: newUserBody() });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(Number) });
  });

  it("answers GET /users with rest_no_route 404", async () => {
    const admin = await makeAdmin();
    const res = await call("GET", "/users", { auth: admin.bearer });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: "rest_no_route",
      message: "No route was found matching the URL and request method.",
      data: { status: 404 },
    });
  });

  it("without an Authorization header answers 401 in envelope B", async () => {
    const res = await call("POST", "/users", { body: newUserBody() });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      status_code: 401,
      status: "failed",
      message: "Permission denied",
      data: [],
      error: { unauthorize: "No authorization provided" },
    });
  });

  it("with a forged token answers 401 Invalid credentials in envelope B", async () => {
    const admin = await makeAdmin();
    const [head, payload] = admin.token.split(".");
    const res = await call("POST", "/users", {
      auth: `Bearer ${head}.${payload}.forgedsignature`,
      body: newUserBody(),
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      status_code: 401,
      status: "failed",
      message: "Permission denied",
      data: [],
      error: { unauthorize: "Invalid credentials" },
    });
  });
});

describe("POST /users with objects where text belongs", () => {
  it("answers 400, never 500, when one field is an object without a usable toString", async () => {
    const admin = await makeAdmin();
    const res = await createUser(admin, {
      username: { toString: 1 },
      user_email: `${unique("o")}@example.test`,
      user_password: "secret123",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual([{ user_login: ["username is required"] }]);
  });
});

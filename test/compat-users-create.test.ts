// POST users in the Rimplenet dialect: captures 01-08 replayed in order (status, key order, field
// names, JSON types, every deterministic value), with this service's credentials in place of the
// peer's; the one deliberate difference (08: an API key is a credential here) asserted as answered.
import { beforeAll, describe, expect, it } from "vitest";
import { compareShape, compatCall, GUARDED } from "./compat-helpers";
import casesText from "./fixtures/rimplenet-1.1.31/users-create.jsonl?raw";
import {
  type Json,
  makeAdmin,
  makeKey,
  makeUser,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

type Case = {
  id: string;
  request: { path: string; auth: string; headers: Record<string, string>; body: string | null };
  response: { status: number; body_json: Json };
};

const CASES: Case[] = casesText
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));

let admin: TestUser;
let keyHeader: string;

beforeAll(async () => {
  admin = await makeAdmin();
  keyHeader = (await makeKey(admin, "read-write")).header;
});

function headersOf(c: Case) {
  const headers: Record<string, string> = {};
  if (c.request.headers["Content-Type"])
    headers["Content-Type"] = c.request.headers["Content-Type"];
  if (c.request.auth === "jwt") headers.Authorization = admin.bearer;
  else if (c.request.auth === "key") headers.Authorization = keyHeader;
  else if (c.request.headers.Authorization) headers.Authorization = c.request.headers.Authorization;
  return headers;
}

describe("replay of the Rimplenet 1.1.31 captures 01-08 (POST users)", () => {
  it("covers captures 01 to 08", () => {
    expect(CASES.map((c) => c.id.slice(0, 2))).toEqual([
      "01",
      "02",
      "03",
      "04",
      "05",
      "06",
      "07",
      "08",
    ]);
  });

  for (const c of CASES) {
    const key = c.id.startsWith("08");
    it(`${c.id}: answers ${key ? "201 on purpose (this service's API key is a credential here)" : c.response.status}`, async () => {
      const before = await tableCounts();
      const res = await compatCall("POST", c.request.path, {
        headers: headersOf(c),
        body: c.request.body ?? "",
        vars: GUARDED,
      });
      const expected = key
        ? {
            status_code: 201,
            status: true,
            message: "User created successfully",
            data: { id: 0 },
            error: [],
          }
        : c.response.body_json;
      expect(res.status, res.text).toBe(key ? 201 : c.response.status);
      expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
      compareShape(res.body, expected, new Set(["data.id"]));
      if (res.status !== 201) expect(await tableCounts()).toStrictEqual(before);
    });
  }
});

describe("POST users in the dialect", () => {
  /** A subscriber created through the dialect's POST users, as an administrator. */
  const created = (user_email: string, username: string, user_password: string) =>
    compatCall("POST", "/wp-json/rimplenet/v1/users/", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({ user_email, username, user_password }),
      vars: GUARDED,
    });

  it("the new user signs in with its password through the dialect's login", async () => {
    const res = await created("dora@example.com", "dora_x", "dorapass1");
    expect(res.status, res.text).toBe(201);
    const login = await compatCall("POST", "/wp-json/rimplenet/v1/users/login", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_email: "dora@example.com", user_password: "dorapass1" }),
      vars: GUARDED,
    });
    expect(login.body.data.user_id).toBe(String(res.body.data.id));
  });

  it("reads the new user back registered at the time it was made, in UTC as WordPress stores it", async () => {
    const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
    const before = utc(Date.now());
    const res = await created("edna@example.com", "edna_x", "ednapass1");
    expect(res.status, res.text).toBe(201);
    const after = utc(Date.now());
    const read = await compatCall(
      "GET",
      `/wp-json/rimplenet/v1/users?user_id=${res.body.data.id}`,
      {
        headers: { Authorization: admin.bearer },
        vars: GUARDED,
      },
    );
    const registered: string = read.body.data.user_created_at;
    expect([registered >= before, registered <= after], registered).toEqual([true, true]);
  });
});

// The real plugin's sanitize_text_field makes a JSON number the text of its digits, so
// `"username":12345` creates user `12345`, and `"user_email":12345` is "Invalid user_email": a
// field that was sent is never "… is required".
describe("POST users with JSON numbers", () => {
  const create = (body: Json) =>
    compatCall("POST", "/wp-json/rimplenet/v1/users", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      vars: GUARDED,
    });

  it("takes a numeric username as its text, and the user signs in with it", async () => {
    const res = await create({
      username: 987654321,
      user_email: "numeric@example.com",
      user_password: 123456,
    });
    expect(res.status, res.text).toBe(201);
    const login = await compatCall("POST", "/wp-json/rimplenet/v1/users/login", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_email: "numeric@example.com", user_password: "123456" }),
      vars: GUARDED,
    });
    expect(login.status, login.text).toBe(200);
    expect(login.body.data).toMatchObject({
      user_id: String(res.body.data.id),
      username: "987654321",
    });
  });

  it("answers a numeric user_email as an invalid one, not a missing one", async () => {
    const before = await tableCounts();
    const res = await create({
      username: "numbermail",
      user_email: 12345,
      user_password: "123456",
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual([{ user_email: ["Invalid user_email"] }]);
    const taken = await create({
      username: 987654321,
      user_email: "other@example.com",
      user_password: "123456",
    });
    expect(taken.body.error).toEqual([{ user_login: ["username already taken"] }]);
    expect(await tableCounts()).toEqual(before);
  });
});

// The plugin passed `username` to wp_insert_user, which stores sanitize_user($login, true): tags
// stripped, accents removed (remove_accents), `%hh` octets and `&…;` entities dropped, then
// everything but ASCII letters, digits, space and `_ . - @`, and the ends trimmed. Its own checks
// ran before, on sanitize_text_field of the text: white space inside refused, as here.
describe("POST users with a username WordPress sanitizes", () => {
  const create = (body: Json) =>
    compatCall("POST", "/wp-json/rimplenet/v1/users", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      vars: GUARDED,
    });
  const usernameOf = async (id: number) => {
    const res = await compatCall("GET", `/wp-json/rimplenet/v1/users?user_id=${id}`, {
      headers: { Authorization: admin.bearer },
      vars: GUARDED,
    });
    return res.body.data.username as string;
  };

  it("creates the user WordPress would have: accents removed, other characters dropped", async () => {
    for (const [sent, stored] of [
      ["José", "Jose"],
      ["Łukasz_Ñandú", "Lukasz_Nandu"],
      ["Þórður.Ægir", "THordur.AEgir"],
      ["Nguyễn-Thị", "Nguyen-Thi"],
      ["e\u0301tienne", "etienne"],
      ["o'brien", "obrien"],
      [" padded99 ", "padded99"],
      ["<b>tagged</b>x", "taggedx"],
      // WordPress stripped the tags of the text as sent, where the plugin's check saw `&lt;`
      ["kate<smith", "kate"],
      ["ḱarl_x", "arl_x"],
    ]) {
      const tag = unique("u");
      const res = await create({
        username: sent,
        user_email: `${tag}@example.com`,
        user_password: "secret12",
      });
      expect(res.status, `${sent}: ${res.text}`).toBe(201);
      expect(await usernameOf(res.body.data.id)).toBe(stored);
    }
  });

  it("names the user it stored by the username as sent, as get_user_by('login') does", async () => {
    // WordPress looks a login up through sanitize_user, which removes accents: the plugin's
    // `GET users?user_id=Renée…` found the user it had stored as `Renee…`.
    // Six digits: a login of the accented name and digits only.
    const tag = String(100_000 + Math.floor(Math.random() * 900_000));
    const made = await create({
      username: `Renée${tag}`,
      user_email: `renee${tag}@example.com`,
      user_password: "secret12",
    });
    expect(made.status, made.text).toBe(201);
    const idOf = async (login: string) => {
      const res = await compatCall(
        "GET",
        `/wp-json/rimplenet/v1/users?user_id=${encodeURIComponent(login)}`,
        {
          headers: { Authorization: admin.bearer },
          vars: GUARDED,
        },
      );
      return res.status === 200 ? res.body.data.id : res.status;
    };
    expect(await idOf(`Renée${tag}`)).toBe(made.body.data.id);
    expect(await idOf(`renee${tag}`)).toBe(made.body.data.id);
    // A username an import brought in as written is that user's, before any other.
    const imported = await makeUser("subscriber", `Renée${tag}x`);
    await create({
      username: `Renee${tag}x`,
      user_email: `r2${tag}@example.com`,
      user_password: "secret12",
    });
    expect(await idOf(`Renée${tag}x`)).toBe(imported.id);
    // An e-mail text is read as it is.
    expect(await idOf(`renée${tag}@example.com`)).toBe(404);
  });

  it("refuses what the plugin refused, or what WordPress could not store, writing nothing", async () => {
    const before = await tableCounts();
    for (const [sent, error] of [
      ["jo sé", ["username must not contain space"]],
      ["ab\tcd", ["username must not contain space"]],
      ["日本語名前", ["username may only contain letters, numbers and _ . - @"]],
      ["Zoë", ["username must be atleast 4 chars"]],
      ["ab\fcd", ["username must not contain space"]],
      ["a<bcdef", ["username must be atleast 4 chars"]],
    ] as const) {
      const res = await create({
        username: sent,
        user_email: `${unique("r")}@example.com`,
        user_password: "secret12",
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error, sent).toEqual([{ user_login: error }]);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("finds the taken username under the stored name, in any case", async () => {
    const first = await create({
      username: "Renée_Dupont",
      user_email: `${unique("renee")}@example.com`,
      user_password: "secret12",
    });
    expect(first.status, first.text).toBe(201);
    const before = await tableCounts();
    const again = await create({
      username: "renee_dupont",
      user_email: `${unique("renee")}@example.com`,
      user_password: "secret12",
    });
    expect(again.body.error).toEqual([{ user_login: ["username already taken"] }]);
    expect(await tableCounts()).toEqual(before);
  });

  it("leaves wallet/v1's POST /users as it was: it refuses the accented name", async () => {
    const res = await compatCall("POST", "/wp-json/wallet/v1/users", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({
        username: "Josiané",
        user_email: "josiane@example.com",
        user_password: "secret12",
      }),
      vars: GUARDED,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual([
      { user_login: ["username may only contain letters, numbers and _ . - @"] },
    ]);
  });
});

// PHP's text of a JSON boolean is "1" (true) or "" (false): the plugin's checks saw those, and
// wp_insert_user and update_user_meta stored them.
describe("POST users with JSON booleans", () => {
  const create = (body: Json) =>
    compatCall("POST", "/wp-json/rimplenet/v1/users", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      vars: GUARDED,
    });

  it("reads true as the text 1 and false as empty, in the plugin's words", async () => {
    const before = await tableCounts();
    const yes = await create({ username: true, user_email: true, user_password: true });
    expect(yes.status, yes.text).toBe(400);
    expect(yes.body.error).toEqual([
      { user_login: ["username must be atleast 4 chars"] },
      { user_email: ["Invalid user_email"] },
      { user_pass: ["Please enter at least 6 characters for the user_password"] },
    ]);
    const no = await create({ username: false, user_email: false, user_password: false });
    expect(no.body.error).toEqual([
      { user_login: ["username is required", "username must be atleast 4 chars"] },
      { user_email: ["user_email is required"] },
      {
        user_pass: [
          "user_password is required",
          "Please enter at least 6 characters for the user_password",
        ],
      },
    ]);
    expect(await tableCounts()).toEqual(before);
  });

  it("creates the user with a boolean first_name, as the plugin stored it", async () => {
    const res = await create({
      username: "boolname",
      user_email: "boolname@example.com",
      user_password: "secret12",
      first_name: true,
      last_name: false,
    });
    expect(res.status, res.text).toBe(201);
    const read = await compatCall(
      "GET",
      `/wp-json/rimplenet/v1/users?user_id=${res.body.data.id}`,
      {
        headers: { Authorization: admin.bearer },
        vars: GUARDED,
      },
    );
    expect(read.body.data).toMatchObject({ first_name: "1", last_name: "" });
  });
});

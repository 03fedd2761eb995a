// The paging limits of GET /holds and the event-type lists of GET /events and POST /webhooks, as
// clients see them: each refusal's text, and the default page size.
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../src/events/records";
import { call, makeAdmin, makeUser, makeWallet } from "./helpers";

const invalid = (error: Record<string, string>) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error,
});
const NAMES = EVENT_TYPES.join(", ");

describe("GET /holds paging", () => {
  it("takes page 1-1000000 and per_page 1-100, and refuses anything else by name", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const cases: [Record<string, string | number>, Record<string, string>][] = [
      [{ page: 0 }, { page: "page must be between 1 and 1000000" }],
      [{ page: 1_000_001 }, { page: "page must be between 1 and 1000000" }],
      [{ page: "abc" }, { page: "page requires an integer" }],
      [{ per_page: 0 }, { per_page: "per_page must be between 1 and 100" }],
      [{ per_page: 101 }, { per_page: "per_page must be between 1 and 100" }],
      [
        { page: -1, per_page: 200 },
        { page: "page requires an integer", per_page: "per_page must be between 1 and 100" },
      ],
    ];
    for (const [query, error] of cases) {
      const res = await call("GET", "/holds", {
        auth: admin.bearer,
        query: { user_id: user.id, ...query },
      });
      expect(res.body, JSON.stringify(query)).toStrictEqual(invalid(error));
    }
    const fine: Record<string, number>[] = [
      { page: 1_000_000 },
      { per_page: 100 },
      { per_page: 1 },
    ];
    for (const query of fine) {
      const res = await call("GET", "/holds", {
        auth: admin.bearer,
        query: { user_id: user.id, ...query },
      });
      expect(res.status, JSON.stringify(query)).toBe(200);
    }
  });

  it("answers 100 holds a page unless asked", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const auth = admin.bearer;
    await call("POST", "/credits", {
      auth,
      body: { user_id: user.id, wallet_id: wallet, amount: "1000", request_id: "pin-c" },
    });
    for (let i = 0; i < 101; i++)
      await call("POST", "/holds", {
        auth,
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: `pin-h${i}` },
      });
    const first = await call("GET", "/holds", { auth, query: { user_id: user.id } });
    expect(first.body.data).toHaveLength(100);
    expect(first.headers.get("X-WP-Total")).toBe("101");
    expect(first.headers.get("X-WP-TotalPages")).toBe("2");
  });
});

describe("event type lists", () => {
  it("GET /events types: names only known types, as text", async () => {
    const admin = await makeAdmin();
    for (const types of ["bogus", "a,b", "transaction.created,bogus"]) {
      const res = await call("GET", "/events", { auth: admin.bearer, query: { types } });
      expect(res.body, types).toStrictEqual(
        invalid({ types: `types must name event types among ${NAMES}` }),
      );
    }
    for (const types of ["", ",", " , ", "hold.placed, hold.placed ,transaction.created"]) {
      const res = await call("GET", "/events", { auth: admin.bearer, query: { types } });
      expect(res.status, types).toBe(200);
    }
    const list = await call("GET", "/events?types[]=hold.placed", { auth: admin.bearer });
    expect(list.body).toStrictEqual(invalid({ types: "types must be text" }));
  });

  it("POST /webhooks events: an empty list is empty, an unknown name is named, a non-list is refused", async () => {
    const admin = await makeAdmin();
    const cases: [unknown, string][] = [
      [[], "Field Cannot be empty"],
      [[""], "Field Cannot be empty"],
      ["", "Field Cannot be empty"],
      [" , ", "Field Cannot be empty"],
      [["bogus"], `events must name event types among ${NAMES}`],
      ["transaction.created,bogus", `events must name event types among ${NAMES}`],
      [5, "events must be a list of event types"],
      [[5], "events must be a list of event types"],
    ];
    for (const [events, text] of cases) {
      const res = await call("POST", "/webhooks", {
        auth: admin.bearer,
        body: { url: "https://hooks.example.test/pin", events },
      });
      expect(res.body, JSON.stringify(events)).toStrictEqual(invalid({ events: text }));
    }
  });
});

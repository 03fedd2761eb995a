import { describe, expect, it } from "vitest";
import {
  phpArrayJson,
  phpInt,
  phpIsNumeric,
  removeAccents,
  sanitizeTextField,
  sanitizeUserStrict,
} from "../src/compat/php";

describe("sanitize_text_field as the plugin ran it", () => {
  it.each([
    ["usd, ngn", "usd, ngn"],
    ["  usd \t\n ngn  ", "usd ngn"],
    ["<b>usd</b>", "usd"],
    ["a < b", "a &lt; b"],
    ["us%41d", "usd"],
    ["%%4141x", "x"],
    [2, "2"],
    [true, "1"],
    [false, ""],
    [["usd"], ""],
    [{ a: 1 }, ""],
    [undefined, ""],
  ])("%j → %j", (input, output) => {
    expect(sanitizeTextField(input)).toBe(output);
  });
});

describe("sanitize_user($login, true) as wp_insert_user ran it", () => {
  it.each([
    ["alice", "alice"],
    ["José", "Jose"],
    ["ÆØÅ-æøå", "AEOA-aeoa"],
    ["Straße", "Strase"],
    ["ǖ_ệ_ș", "u_e_s"],
    ["e\u0301", "e"],
    ["o'brien+1", "obrien1"],
    ["a&amp;b", "ab"],
    ["a&b", "ab"],
    ["a&;b", "ab"],
    ["&;;x", "x"],
    ["a&\n;b", "ab"],
    ["x&&&&y", "xy"],
    ["  a   b  ", "a b"],
    ["日本", ""],
    ["ab@c.d_e-f", "ab@c.d_e-f"],
  ])("%j → %j", (input, output) => {
    expect(sanitizeUserStrict(input)).toBe(output);
  });

  it("keeps what has no accent to remove", () => {
    expect(removeAccents("plain")).toBe("plain");
    expect(removeAccents("日本")).toBe("日本");
    expect(removeAccents("Ωmega")).toBe("Ωmega");
  });

  it("walks a long text of ampersands once", () => {
    expect(sanitizeUserStrict(`${"&".repeat(200_000)}x`)).toBe("x");
  });
});

describe("PHP numbers", () => {
  it("is_numeric accepts PHP's numeric strings only", () => {
    for (const yes of ["2", "-2", "+2", "2.5", ".5", "5.", "1e3", "1E-2", " 2"])
      expect(phpIsNumeric(yes), yes).toBe(true);
    for (const no of ["", "abc", "2abc", "0x1A", "1e", ".", "-", "1_000", "Infinity"])
      expect(phpIsNumeric(no), no).toBe(false);
  });

  it("(int) truncates and refuses what no id can be", () => {
    expect([phpInt("2.9"), phpInt("-2"), phpInt("1e1"), phpInt("abc"), phpInt("1e300")]).toEqual([
      2,
      -2,
      10,
      null,
      null,
    ]);
  });

  it("(int) counts leading zeros for nothing, however many", () => {
    const zeros = "0".repeat(60);
    expect([
      phpInt(`${zeros}1`),
      phpInt(` -${zeros}2.5`),
      phpInt(zeros),
      phpInt(`${zeros}x`),
    ]).toEqual([1, -2, 0, null]);
  });

  it("a PHP array is a list only with keys 0, 1, 2…, else an object in insertion order", () => {
    expect(phpArrayJson(new Map([[0, "a"]]))).toBe('["a"]');
    expect(
      phpArrayJson(
        new Map<string | number, string>([
          ["", "a"],
          [0, "b"],
        ]),
      ),
    ).toBe('{"":"a","0":"b"}');
  });
});

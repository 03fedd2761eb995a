import { describe, expect, it } from "vitest";
import { removeAccents } from "../src/accents";
import {
  phpArrayJson,
  phpInt,
  phpIntCast,
  phpPage,
  pluginPage,
  requires,
  sanitizeTextField,
  sanitizeUser,
  wpPaged,
} from "../src/compat/php";
import { phpIsNumeric } from "../src/ledger/money";

describe("sanitize_text_field as the plugin ran it", () => {
  it.each([
    ["usd, ngn", "usd, ngn"],
    ["  usd \t\n ngn  ", "usd ngn"],
    ["<b>usd</b>", "usd"],
    ["a < b", "a &lt; b"],
    ["us%41d", "usd"],
    // _sanitize_text_fields' `/%[a-f0-9]{2}/i`: lowercase hex too
    ["a%2fb%2Fc", "abc"],
    ["%%4141x", "x"],
    // The spaces an octet stood between become one, as _sanitize_text_fields folds them once it
    // removed any
    ["a %41 b", "a b"],
    [2, "2"],
    [true, "1"],
    [false, ""],
    [["usd"], ""],
    [{ a: 1 }, ""],
    [undefined, ""],
    // What WordPress 6.1 on PHP 8.2 answered for each (wp_pre_kses_less_than's esc_html, strip_tags)
    [`a < b & "c" 'd'`, "a &lt; b &amp; &quot;c&quot; &#039;d&#039;"],
    ["tom & jerry", "tom & jerry"],
    [
      "&copy; < &bogus; &#65; &#x41; &#0; &apos;",
      "&copy; &lt; &amp;bogus; &#065; &#x41; &amp;apos;",
    ],
    ["1 &lt; 2 < 3", "1 &lt; 2 &lt; 3"],
    // wp_kses_normalize_entities2/3: only a lone "0" is PHP's empty(); valid_unicode ends the
    // first range at U+D7FF, so a surrogate is no reference
    [
      "< &#00; &#x00; &#55295; &#55296; &#xD7FF; &#xd800;",
      "&lt; &amp;#00; &amp;#x00; &#55295; &amp;#55296; &#xD7FF; &amp;#xd800;",
    ],
    ['<a title=">">x', "x"],
    ["<a title='>'>x", "x"],
    // A `<?` runs to its `?>`, a `>` inside it is no end
    ["<?x > y ?>z", "z"],
    // A lone `<` is escaped up to the next `<`, which starts a tag of its own
    ["a < b <c>d", "a &lt; b d"],
    ["x<script>alert(1)</script>y", "xy"],
    ["<!-- note -->paid", "paid"],
    // A comment ends at `-->` only: strip_tags reads `->` inside it as comment
    ["<!-- a -> b -->paid", "paid"],
    ["<\n>", "&lt; >"],
    ["a\0<b>", "a"],
    ["a\0b", "a\0b"],
    ["a\fb\vc", "a\fb\vc"],
    // A JSON number as PHP's json_decode and string conversion made it
    [1e20, "1.0E+20"],
    [0.1 + 0.2, "0.3"],
    [1e-7, "1.0E-7"],
    // PHP's precision 14: an exponent from -5 down or from 14 up is written as one, and a 15th
    // digit that is exactly half rounds to the even 14th
    [1e-5, "1.0E-5"],
    [0.0001, "0.0001"],
    [1e14 + 0.5, "1.0E+14"],
    [12345678901234.5, "12345678901234"],
    [12345678901235.5, "12345678901236"],
    [2 ** 63, "9.2233720368548E+18"],
    // -2^63 reaches here only as a float: json_decode held PHP_INT_MIN's digits as an integer, and
    // JSON.parse keeps those as text (http/params.ts); -9223372036854776000 is past PHP_INT_MIN
    [-(2 ** 63), "-9.2233720368548E+18"],
    [-Infinity, "-INF"],
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
    // `/&.+?;/` takes at least one character before its `;`
    ["a&;b;c", "ac"],
    ["&;;x", "x"],
    ["a&\n;b", "ab"],
    // `.` does not match a newline: an `&` whose `;` comes after one is no entity
    ["a&b\n;c", "abc"],
    ["x&&&&y", "xy"],
    ["  a   b  ", "a b"],
    ["日本", ""],
    ["ab@c.d_e-f", "ab@c.d_e-f"],
    // What WordPress 6.1 on PHP 8.2 stored for each: strip_tags of the text as sent, its own list
    // of accented letters
    ["kate<smith", "kate"],
    ["a<b", "a"],
    ["<b>bob</b>by", "bobby"],
    ["x<script>y</script>z", "xz"],
    ["al%41ice", "alice"],
    ["a\fb", "ab"],
    ["ḱate_x", "ate_x"],
    ["Əli", "li"],
    ["£50x", "50x"],
    ["Ș", "S"],
  ])("%j → %j", (input, output) => {
    expect(sanitizeUser(input)).toBe(output);
  });

  it("keeps what has no accent to remove, and what WordPress does not list", () => {
    expect(removeAccents("plain")).toBe("plain");
    expect(removeAccents("日本")).toBe("日本");
    expect(removeAccents("Ωmega")).toBe("Ωmega");
    expect(removeAccents("ḱẃǽ")).toBe("ḱẃǽ");
  });

  it("walks a long text of ampersands once", () => {
    expect(sanitizeUser(`${"&".repeat(200_000)}x`)).toBe("x");
  });
});

describe("PHP numbers", () => {
  it("is_numeric accepts PHP's numeric strings only", () => {
    for (const yes of ["2", "-2", "+2", "2.5", ".5", "5.", "1e3", "1E-2", " 2"])
      expect(phpIsNumeric(yes), yes).toBe(true);
    for (const no of ["", "abc", "2abc", "0x1A", "1e", ".", "-", "1_000", "Infinity"])
      expect(phpIsNumeric(no), no).toBe(false);
  });

  it("is_numeric takes C's white space around a number (a form feed too), never a NUL byte", () => {
    for (const yes of ["2\f", "\f2", "\v2", " 2\n", "\r\t2\v\f"])
      expect(phpIsNumeric(yes), JSON.stringify(yes)).toBe(true);
    for (const no of ["2\0", "\u00002", "2\u00a0"])
      expect(phpIsNumeric(no), JSON.stringify(no)).toBe(false);
    expect([phpInt("\f2"), phpInt("\u00002")]).toEqual([2, null]);
    // After the number too, each of the six, as (int) reads it; any other space is no number.
    expect([phpInt("2\v"), phpInt(" -3.9e0\r\n"), phpInt("\t4\f "), phpInt("2\u00a0")]).toEqual([
      2,
      -3,
      4,
      null,
    ]);
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

  it("(int) reads a long numeric text as PHP does: its digits after the point, or its exponent's zeros, count for nothing", () => {
    const zeros = "0".repeat(60);
    expect([
      phpInt(`2.${zeros}`),
      phpInt(`-2.${zeros}9`),
      phpInt(`2e${zeros}`),
      phpInt(`0.${zeros}1`),
      phpInt(`1${zeros}`),
    ]).toEqual([2, -2, 2, 0, null]);
    // A page of such a text is its integer part too, not past the end.
    expect([phpPage(`2.${zeros}`), phpPage(`0.${zeros}1`), wpPaged(`-3.${zeros}`)]).toEqual([
      2, 1, 3,
    ]);
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
    // json_encode([1 => "a"]): keys that are numbers but not 0, 1, 2… make an object
    expect(phpArrayJson(new Map([[1, "a"]]))).toBe('{"1":"a"}');
  });

  it("(int) of a text is the integer part of the number it starts with, as PHP 8.2 read them", () => {
    // Each pair checked with `php -r 'var_dump((int)"…");'` on PHP 8.2.
    const cases: [string, number][] = [
      ["12abc", 12],
      [" 12", 12],
      ["12.9", 12],
      ["1e2", 100],
      ["-3", -3],
      ["0x1A", 0],
      ["", 0],
      ["0012", 12],
      ["+5", 5],
      ["12 ", 12],
      ["abc", 0],
      ["1e", 1],
      ["1.5e3x", 1500],
      [".5x", 0],
      ["-.5e1x", -5],
      ["- 1", 0],
      ["+-1", 0],
      ["\f12x", 12],
      ["\u00a012", 0],
      ["-1abc", -1],
      ["1e-1x", 0],
    ];
    expect(cases.map(([text]) => [text, phpIntCast(text) + 0])).toEqual(cases);
    // PHP held these at PHP_INT_MAX and PHP_INT_MIN; every reader here bounds them.
    expect([phpIntCast("1e308x"), phpIntCast(`-${"9".repeat(20)}`)]).toEqual([
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ]);
    // absint(): page_no=2abc is page 2, as WP_Query read it.
    expect([wpPaged("2abc"), wpPaged("-2x"), wpPaged("x"), wpPaged("1e308x")]).toEqual([
      2, 2, 1, 1_000_000,
    ]);
  });

  it("(int) of a text whose number is past a double's range is 0, as PHP 8.2's", () => {
    // `php -r 'var_dump((int)"1e400x", (int)"-1e309");'`: int(0) twice (PHP_INT_MAX is for a
    // finite double only). absint() of it is WP_Query's page 0, the first; its posts_per_page 0 is
    // one post.
    expect([phpIntCast("1e400x"), phpIntCast("-1e309"), phpIntCast("\t1e400")]).toEqual([0, 0, 0]);
    expect([wpPaged("1e400"), wpPaged("-1e400")]).toEqual([1, 1]);
    // The plugin's own page is its arithmetic's number (INF there): still past the end.
    expect([pluginPage("1e400"), pluginPage("1e308"), pluginPage("-1e400")]).toEqual([
      1_000_000, 1_000_000, 1,
    ]);
  });

  it("a page is (int) of the text, at least 1; WP_Query's paged reads a negative one as its absolute value", () => {
    expect([phpPage("0"), phpPage("-3"), phpPage("2.9"), phpPage("abc"), phpPage("1e308")]).toEqual(
      [1, 1, 2, 1, 1_000_000],
    );
    expect([wpPaged("-2"), wpPaged(" -3 "), wpPaged("0"), wpPaged("-x")]).toEqual([2, 3, 1, 1]);
    // A negative number past a safe integer is still below 1; absint("- 5") is 0, not 5
    expect([phpPage("-1e308"), phpPage(`-${"9".repeat(20)}`), wpPaged("- 5")]).toEqual([1, 1, 1]);
  });
});

describe("the plugin's Utils::requires", () => {
  it("an int of zeros however many is zero, and a field of PHP's white space alone is empty", () => {
    expect(requires({ user_id: ["00", "int"], to: ["0", "int"], id: ["007", "int"] })).toEqual({
      user_id: "user_id cannot be zero",
      to: "to cannot be zero",
    });
    // A raw parameter reaches `requires` untrimmed (POST wallets' numbers are read as sent).
    expect(requires({ wallet_decimal: [" \t\n", "any"], n: ["\u00a0", "any"] })).toEqual({
      wallet_decimal: "Field Cannot be empty",
    });
  });
});

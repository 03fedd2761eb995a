// The one amount conversion (src/ledger/money.ts amountToMinor) under both dialects' policies, on
// wallets of 0-8 decimals storing 0-4 extra places, against a reference in exact rational arithmetic
// (BigInt). Seeded: a failure prints its seed and path, and SEED replays the same cases.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AmountPolicy,
  amountToMinor,
  MAX_MINOR,
  movedAmountText,
  phpIsNumeric,
  readPhpDecimal,
  type WalletUnits,
} from "../src/ledger/money";

const SEED = 20_221_122;
const RUNS = { seed: SEED, numRuns: 3000 };

const wallet = fc.record({
  decimals: fc.integer({ min: 0, max: 8 }),
  extraDecimals: fc.integer({ min: 0, max: 4 }),
});
const digits = (min: number, max: number) =>
  fc
    .array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max })
    .map((d) => d.join(""));
/** `digits[.digits]`, the text wallet/v1 reads: up to 16 integer and 20 fraction digits. */
const decimalText = fc
  .tuple(digits(1, 16), fc.option(digits(1, 20), { nil: undefined }))
  .map(([integer, fraction]) => (fraction === undefined ? integer : `${integer}.${fraction}`));

const places = (w: WalletUnits) => w.decimals + (w.extraDecimals ?? 0);

/** The text's value as the fraction n / d, exactly. */
function rational(text: string) {
  const [integer, fraction = ""] = text.split(".");
  return { n: BigInt(integer! + fraction), d: 10n ** BigInt(fraction.length) };
}

/** Units of 10^-p nearest to the text, halves away from zero: floor((2·n·10^p + d) / 2d). */
function nearestUnits(text: string, p: number) {
  const { n, d } = rational(text);
  return (2n * n * 10n ** BigInt(p) + d) / (2n * d);
}

/** What a conversion must answer for `units` (already rounded or exact). */
const judged = (units: bigint) =>
  units === 0n ? "not-positive" : units > BigInt(MAX_MINOR) ? "too-large" : Number(units);

const convert = (sent: string | number, w: WalletUnits, policy: AmountPolicy) =>
  amountToMinor(sent, w, policy);

describe(`amountToMinor (fast-check seed ${SEED})`, () => {
  it("wallet/v1 takes exactly the amounts whose digits past the display decimals are zeros, counted in storage units", () => {
    fc.assert(
      fc.property(decimalText, wallet, (text, w) => {
        const { n, d } = rational(text);
        const shown = 10n ** BigInt(w.decimals);
        const fits = (n * shown) % d === 0n;
        const got = convert(text, w, "refuse-excess-places");
        if (n === 0n) expect(got).toBe("not-positive");
        else if (!fits) expect(got).toBe("too-many-decimals");
        else expect(got).toBe(judged((n * 10n ** BigInt(places(w))) / d));
      }),
      RUNS,
    );
  });

  it("the plugin dialect rounds half away from zero to the storage places, and agrees with wallet/v1 wherever wallet/v1 accepts", () => {
    fc.assert(
      fc.property(decimalText, wallet, (text, w) => {
        const strict = convert(text, w, "refuse-excess-places");
        const rounded = convert(text, w, "round-half-away-from-zero");
        expect(rounded).toBe(judged(nearestUnits(text, places(w))));
        if (typeof strict === "number") expect(rounded).toBe(strict);
      }),
      RUNS,
    );
  });

  it("agrees for JSON numbers too (read from their shortest decimal text)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-9, max: 1e13, noNaN: true, noDefaultInfinity: true }),
        wallet,
        (n, w) => {
          const strict = convert(n, w, "refuse-excess-places");
          const rounded = convert(n, w, "round-half-away-from-zero");
          if (typeof strict === "number") expect(rounded).toBe(strict);
          expect(rounded).toBe(convert(plain(n), w, "round-half-away-from-zero"));
        },
      ),
      RUNS,
    );
  });

  it("never goes through a float for text: halves a double misplaces round exactly", () => {
    const twoPlaces = { decimals: 2 };
    // 0.145 * 100 is 14.499999999999998 and 1.005 * 100 is 100.49999999999999 in doubles.
    expect(convert("0.145", twoPlaces, "round-half-away-from-zero")).toBe(15);
    expect(convert("1.005", twoPlaces, "round-half-away-from-zero")).toBe(101);
    expect(convert("2.675", twoPlaces, "round-half-away-from-zero")).toBe(268);
    expect(
      convert(
        "0.30000000000000004",
        { decimals: 8, extraDecimals: 4 },
        "round-half-away-from-zero",
      ),
    ).toBe(300000000000);
    // 17 significant digits, past what a double holds: the last digit decides.
    expect(
      convert("12345.678912345675", { decimals: 8, extraDecimals: 2 }, "round-half-away-from-zero"),
    ).toBe(123456789123457);
    expect(
      convert(
        "0.000000000000499999999",
        { decimals: 8, extraDecimals: 4 },
        "round-half-away-from-zero",
      ),
    ).toBe("not-positive");
    expect(
      convert("0.0000000000005", { decimals: 8, extraDecimals: 4 }, "round-half-away-from-zero"),
    ).toBe(1);
  });

  it("the plugin dialect reads PHP-numeric text as the plugin did: signs, bare points, exponents", () => {
    const w = { decimals: 2, extraDecimals: 1 };
    const round: AmountPolicy = "round-half-away-from-zero";
    expect(convert("+.5", w, round)).toBe(500);
    expect(convert("12.", w, round)).toBe(12000);
    expect(convert(" 1.5E-2 ", w, round)).toBe(15);
    expect(convert("1e3", w, round)).toBe(1_000_000);
    expect(convert("-5", w, round)).toBe("not-positive");
    // A JSON number too: its sign is read, never dropped.
    expect(convert(-5, w, round)).toBe("not-positive");
    expect(convert(-0.0004, w, round)).toBe("not-positive");
    expect(convert("0.0004", w, round)).toBe("not-positive");
    expect(convert("1e400", w, round)).toBe("too-large");
    expect(convert("1e-500", w, round)).toBe("not-positive");
    expect(convert("1e500", w, round)).toBe("too-large");
    // Zero is no amount whatever its exponent: never "too large".
    expect(convert("0e500", w, round)).toBe("not-positive");
    expect(convert("0.0E+999", w, round)).toBe("not-positive");
    expect(convert("abc", w, round)).toBe("not-numeric");
    // wallet/v1 reads none of these notations.
    for (const text of ["+.5", "12.", "1e3", " 1"])
      expect(convert(text, w, "refuse-excess-places")).toBe("not-numeric");
  });
});

describe("movedAmountText", () => {
  it("keeps the text as sent when it is exactly what moved, else writes what moved", () => {
    const two = { decimals: 2 };
    expect(movedAmountText("1500", 150000, two)).toBe("1500");
    expect(movedAmountText("100.50", 10050, two)).toBe("100.50");
    expect(movedAmountText("1.5E-5", 15, { decimals: 2, extraDecimals: 4 })).toBe("1.5E-5");
    expect(movedAmountText("-0", 0, two)).toBe("-0");
    expect(movedAmountText("0.005", 1, two)).toBe("0.01");
    expect(movedAmountText("14507.525000000001", 1450753, two)).toBe("14507.53");
    expect(movedAmountText("12.345", 12345, { decimals: 2, extraDecimals: 1 })).toBe("12.345");
    expect(movedAmountText("1%2e5", 150, two)).toBe("1.50");
    // An imported debit may keep its amount signed; what moved is the amount, not its sign.
    expect(movedAmountText("-3", 300, two)).toBe("3.00");
    expect(movedAmountText("-3.00", 300, two)).toBe("3.00");
  });

  it("always reads back as the amount that moved", () => {
    fc.assert(
      fc.property(decimalText, wallet, (text, w) => {
        const minor = convert(text, w, "round-half-away-from-zero");
        if (typeof minor !== "number") return;
        const shown = movedAmountText(text, minor, w);
        expect(convert(shown, { decimals: places(w) }, "refuse-excess-places")).toBe(minor);
      }),
      RUNS,
    );
  });
});

describe("the plugin's amounts, as PHP's is_numeric reads them", () => {
  // Texts near the edges of PHP's numeric syntax: signs, points, exponents, and white space that C
  // skips (a tab, a form feed) beside what it does not (a NUL byte, a no-break space).
  const nearNumeric = fc
    .array(fc.constantFrom(..."0159.eE+- \t\f\0\u00a0\u2028"), { maxLength: 12 })
    .map((chars) => chars.join(""));

  it("refuses as not numeric exactly what is_numeric refuses", () => {
    const two = { decimals: 2 };
    for (const text of [" 1", "1\t", "\f1e2", "+.5", "5.", "-0"])
      expect(phpIsNumeric(text), JSON.stringify(text)).toBe(true);
    for (const text of ["\u00a01", "1\u00a0", "\u20281", "1\0", "e5", ".", "1e", "1e+", "--1"])
      expect(phpIsNumeric(text), JSON.stringify(text)).toBe(false);
    fc.assert(
      fc.property(nearNumeric, (text) => {
        const refused = convert(text, two, "round-half-away-from-zero") === "not-numeric";
        expect(refused).toBe(!phpIsNumeric(text));
        if (!phpIsNumeric(text)) expect(readPhpDecimal(text, true)).toBeNull();
      }),
      RUNS,
    );
  });
});

/** A double's shortest decimal text, written out without an exponent, as a string. */
function plain(n: number) {
  const [mantissa, exponent = "0"] = String(n).split("e");
  const [integer, fraction = ""] = mantissa!.split(".");
  const shift = Number(exponent);
  const all = integer! + fraction;
  const point = integer!.length + shift;
  if (point <= 0) return `0.${"0".repeat(-point)}${all}`;
  if (point >= all.length) return all + "0".repeat(point - all.length);
  return `${all.slice(0, point)}.${all.slice(point)}`;
}

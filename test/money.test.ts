import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  amountToMinor,
  exactText,
  formatExact,
  formatMoney,
  MAX_MINOR,
  minorToNumber,
  minorToText,
  plainDecimal,
  readAmount,
  toDisplayMinor,
  type WalletDisplay,
} from "../src/ledger/money";
import {
  displayDate,
  localListDate,
  mysqlDate,
  mysqlDateSeconds,
  postTitle,
  slugify,
  titleDate,
  transferListDate,
} from "../src/ledger/post-format";

const minorOf = (input: string | number, decimals: number) =>
  amountToMinor(input, { decimals }, "refuse-excess-places");

const NAIRA: WalletDisplay = { symbol: "₦", symbolPosition: "left", decimals: 2 };
// 2022-09-05T14:15:07Z, the contract's example instant.
const EXAMPLE_S = Date.UTC(2022, 8, 5, 14, 15, 7) / 1000;
const CONTRACT_TITLE =
  "TRANSACTION by johndoe, Type: CREDIT, Wallet Info: ₦1,500.00 Naira Wallet  on Monday 5th of September 2022 @ 02:15:07 PM";
const CONTRACT_SLUG =
  "transaction-by-johndoe-type-credit-wallet-info-%e2%82%a61500-00-naira-wallet-on-monday-5th-of-september-2022-021507-pm";

describe("readAmount", () => {
  it("reads JSON numbers as their decimal text", () => {
    expect(readAmount(1500)).toEqual({ text: "1500", integer: "1500", fraction: "" });
    expect(readAmount(100.5)).toEqual({ text: "100.5", integer: "100", fraction: "5" });
  });

  it("reads numeric strings digit by digit, keeping trailing zeros", () => {
    expect(readAmount("100.50")).toEqual({ text: "100.50", integer: "100", fraction: "50" });
    expect(readAmount("1.500")).toEqual({ text: "1.500", integer: "1", fraction: "500" });
    expect(readAmount("007")).toEqual({ text: "007", integer: "007", fraction: "" });
  });

  it("writes a tiny number out without an exponent", () => {
    expect(readAmount(1e-7)).toEqual({ text: "0.0000001", integer: "0", fraction: "0000001" });
  });

  it("writes a huge but exact number out in full digits", () => {
    expect(readAmount(1e21)).toEqual({
      text: `1${"0".repeat(21)}`,
      integer: `1${"0".repeat(21)}`,
      fraction: "",
    });
  });

  it("takes a number's shortest round-trip text at its word", () => {
    // Numbers arrive exact (http/params.ts turns inexact JSON literals into text), so a number's
    // shortest round-trip text is taken at its word: 0.1 + 0.2 is 0.30000000000000004.
    expect(readAmount(0.1 + 0.2)).toEqual({
      text: "0.30000000000000004",
      integer: "0",
      fraction: "30000000000000004",
    });
  });

  it("says zero and negative amounts are not positive", () => {
    for (const input of [0, -1, -0.5, "0", "0.00", "-5", "-1.25"])
      expect(readAmount(input), String(input)).toBe("not-positive");
  });

  it("refuses signs, exponents, hex, spaces and other text as not numeric", () => {
    for (const input of [
      "+5",
      "1e5",
      "0x10",
      " 5",
      "5 ",
      "",
      ".5",
      "5.",
      "1,000",
      "abc",
      "NaN",
      "Infinity",
    ]) {
      expect(readAmount(input), JSON.stringify(input)).toBe("not-numeric");
    }
  });

  it("refuses NaN, infinities and non-numeric types", () => {
    for (const input of [NaN, Infinity, -Infinity, null, undefined, true, {}, [5]])
      expect(readAmount(input), String(input)).toBe("not-numeric");
  });
});

describe("amountToMinor, refusing excess places (wallet/v1)", () => {
  it("scales to minor units for 0, 2 and 8 decimals", () => {
    expect(minorOf(1500, 2)).toBe(150000);
    expect(minorOf("100.5", 2)).toBe(10050);
    expect(minorOf("12000", 0)).toBe(12000);
    expect(minorOf("0.00000001", 8)).toBe(1);
    expect(minorOf(1e-7, 8)).toBe(10);
    expect(minorOf("1", 8)).toBe(100000000);
  });

  it("accepts extra fraction digits only when they are zeros", () => {
    expect(minorOf("1.500", 2)).toBe(150);
    expect(minorOf("7.0", 0)).toBe(7);
    expect(minorOf("0.000000010", 8)).toBe(1);
  });

  it("refuses fraction digits beyond the wallet's decimals", () => {
    expect(minorOf("1.005", 2)).toBe("too-many-decimals");
    expect(minorOf("1.5", 0)).toBe("too-many-decimals");
    expect(minorOf("0.000000015", 8)).toBe("too-many-decimals");
  });

  it("accepts up to 999,999,999,999,999 minor units and refuses more", () => {
    expect(MAX_MINOR).toBe(999_999_999_999_999);
    expect(minorOf("9999999999999.99", 2)).toBe(MAX_MINOR);
    expect(minorOf("10000000000000", 2)).toBe("too-large");
    expect(minorOf("9999999.99999999", 8)).toBe(MAX_MINOR);
    expect(minorOf("10000000", 8)).toBe("too-large");
    expect(minorOf("90071992547409.91", 2)).toBe("too-large");
    expect(minorOf("99999999999999999999", 0)).toBe("too-large");
    expect(minorOf(1e21, 2)).toBe("too-large");
  });
});

describe("a wallet that stores more places than it displays (imported from WordPress)", () => {
  it("takes new amounts only with its display decimals, counted in its storage units", () => {
    expect(amountToMinor("12.34", { decimals: 2, extraDecimals: 1 }, "refuse-excess-places")).toBe(
      12340,
    );
    expect(amountToMinor("12.340", { decimals: 2, extraDecimals: 1 }, "refuse-excess-places")).toBe(
      12340,
    );
    expect(amountToMinor("12.345", { decimals: 2, extraDecimals: 1 }, "refuse-excess-places")).toBe(
      "too-many-decimals",
    );
    expect(amountToMinor("1", { decimals: 0, extraDecimals: 8 }, "refuse-excess-places")).toBe(
      100000000,
    );
    // The limit is in storage units: a third place costs the largest amount a digit.
    expect(
      amountToMinor("999999999999.99", { decimals: 2, extraDecimals: 1 }, "refuse-excess-places"),
    ).toBe(999999999999990);
    expect(
      amountToMinor("1000000000000", { decimals: 2, extraDecimals: 1 }, "refuse-excess-places"),
    ).toBe("too-large");
  });

  it("rounds for display half away from zero, in integers", () => {
    const naira3 = { ...NAIRA, extraDecimals: 1 };
    expect(formatMoney(12345, naira3)).toBe("₦12.35");
    expect(formatMoney(12344, naira3)).toBe("₦12.34");
    expect(formatMoney(-12345, naira3)).toBe("₦-12.35");
    expect(formatMoney(-116665, naira3)).toBe("₦-116.67");
    expect(formatMoney(1234567894, { ...naira3, extraDecimals: 3 })).toBe("₦12,345.68");
    // A value that rounds to zero shows no sign (PHP 8's number_format neither).
    expect(formatMoney(-4, naira3)).toBe("₦0.00");
    expect(formatMoney(-5, naira3)).toBe("₦-0.01");
    expect(formatMoney(MAX_MINOR, { ...NAIRA, decimals: 0, extraDecimals: 15 })).toBe("₦1");
    expect(toDisplayMinor(MAX_MINOR, 1)).toBe(100_000_000_000_000);
    fc.assert(
      fc.property(
        fc.integer({ min: -MAX_MINOR, max: MAX_MINOR }),
        fc.integer({ min: 0, max: 7 }),
        (minor, extra) => {
          // Against BigInt: round(|m| / 10^e) half up, sign restored.
          const unit = 10n ** BigInt(extra);
          const magnitude = BigInt(Math.abs(minor));
          const rounded = (magnitude * 2n + unit) / (unit * 2n);
          expect(toDisplayMinor(minor, extra)).toBe(
            minor < 0 && rounded !== 0n ? -Number(rounded) : Number(rounded),
          );
          // A sum past 2^53 (a statement's totals) is rounded the same, in BigInt.
          expect(toDisplayMinor(BigInt(minor), extra)).toBe(minor < 0 ? -rounded : rounded);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("shows an amount exactly with its symbol and separators, for the console", () => {
    const naira3 = { ...NAIRA, extraDecimals: 1 };
    expect(formatExact(1234567895, naira3)).toBe("₦1,234,567.895");
    expect(formatExact(1234567890, naira3)).toBe("₦1,234,567.89");
    expect(formatExact(-5, naira3)).toBe("₦-0.005");
    expect(formatExact(12000, { ...NAIRA, decimals: 0, extraDecimals: 3 })).toBe("₦12");
    expect(
      formatExact(1234005, {
        ...NAIRA,
        symbol: "RMPNCOIN",
        symbolPosition: "right",
        decimals: 0,
        extraDecimals: 3,
      }),
    ).toBe("1,234.005 RMPNCOIN");
    // A wallet storing no more places than it shows: the same text as formatMoney's.
    fc.assert(
      fc.property(fc.integer({ min: -MAX_MINOR, max: MAX_MINOR }), (minor) => {
        expect(formatExact(minor, NAIRA)).toBe(formatMoney(minor, NAIRA));
      }),
    );
  });

  it("writes exact text with at least the display decimals", () => {
    expect(exactText(12345, { decimals: 2, extraDecimals: 1 })).toBe("12.345");
    expect(exactText(12340, { decimals: 2, extraDecimals: 1 })).toBe("12.34");
    expect(exactText(1200000, { decimals: 2, extraDecimals: 3 })).toBe("12.00");
    expect(exactText(-1160050, { decimals: 2, extraDecimals: 2 })).toBe("-116.005");
    expect(exactText(12000, { decimals: 0 })).toBe("12000");
    expect(exactText(5, { decimals: 0, extraDecimals: 3 })).toBe("0.005");
    expect(exactText(10, { decimals: 0, extraDecimals: 1 })).toBe("1");
  });

  it("prints exact balances as JSON numbers that read back as the same decimal, up to 15 places", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -MAX_MINOR, max: MAX_MINOR }),
        fc.integer({ min: 0, max: 15 }),
        (minor, places) => {
          // JSON writes small numbers with an exponent (1e-7); plainDecimal reads the literal exactly.
          const printed = plainDecimal(JSON.stringify(minorToNumber(minor, places)))!;
          const [integer, fraction = ""] = printed.replace("-", "").split(".");
          expect(fraction.length).toBeLessThanOrEqual(places);
          expect(
            BigInt(integer! + fraction.padEnd(places, "0")) * (printed.startsWith("-") ? -1n : 1n),
          ).toBe(BigInt(minor));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("formatMoney", () => {
  it("formats the contract's examples", () => {
    expect(formatMoney(150000, NAIRA)).toBe("₦1,500.00");
    expect(formatMoney(0, { symbol: "$", symbolPosition: "left", decimals: 2 })).toBe("$0.00");
    expect(formatMoney(12000, { symbol: "RMPNCOIN", symbolPosition: "right", decimals: 0 })).toBe(
      "12,000 RMPNCOIN",
    );
    expect(formatMoney(-123450, NAIRA)).toBe("₦-1,234.50");
  });

  it("groups thousands only where there are more than three integer digits", () => {
    expect(formatMoney(99999, NAIRA)).toBe("₦999.99");
    expect(formatMoney(100000, NAIRA)).toBe("₦1,000.00");
    expect(formatMoney(123456789, { ...NAIRA, decimals: 0 })).toBe("₦123,456,789");
    expect(formatMoney(MAX_MINOR, NAIRA)).toBe("₦9,999,999,999,999.99");
  });

  it("groups every amount's integer digits as en-US does, sums past 2^53 too", () => {
    const plain = { symbol: "", symbolPosition: "left" } as const;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -MAX_MINOR, max: MAX_MINOR }),
          fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        ),
        fc.integer({ min: 0, max: 8 }),
        (minor, decimals) => {
          const [integer, fraction] = minorToText(minor, decimals).split(".");
          const grouped = BigInt(integer!).toLocaleString("en-US");
          const sign = integer!.startsWith("-") && !grouped.startsWith("-") ? "-" : "";
          expect(formatMoney(minor, { ...plain, decimals })).toBe(
            sign + grouped + (fraction === undefined ? "" : `.${fraction}`),
          );
        },
      ),
    );
  });

  it("pads small amounts to the wallet's decimals", () => {
    expect(formatMoney(5, NAIRA)).toBe("₦0.05");
    expect(formatMoney(1, { symbol: "BTC", symbolPosition: "right", decimals: 8 })).toBe(
      "0.00000001 BTC",
    );
    expect(formatMoney(-5, NAIRA)).toBe("₦-0.05");
  });
});

describe("minorToNumber and minorToText", () => {
  it("give major units exactly", () => {
    expect(minorToNumber(150000, 2)).toBe(1500);
    expect(minorToNumber(10050, 2)).toBe(100.5);
    expect(minorToNumber(30, 2)).toBe(0.3);
    expect(minorToNumber(1, 8)).toBe(0.00000001);
    expect(minorToNumber(12000, 0)).toBe(12000);
    expect(minorToNumber(0, 2)).toBe(0);
    expect(minorToNumber(-123450, 2)).toBe(-1234.5);
    expect(minorToNumber(MAX_MINOR, 2)).toBe(9999999999999.99);
    expect(JSON.stringify(minorToNumber(MAX_MINOR, 8))).toBe("9999999.99999999");
  });

  it("print every balance up to MAX_MINOR as a JSON number that reads back as the same decimal", () => {
    const roundTrip = (minor: number, decimals: number) =>
      minorOf(JSON.parse(JSON.stringify(minorToNumber(minor, decimals))), decimals);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_MINOR }),
        fc.integer({ min: 0, max: 8 }),
        (minor, decimals) => {
          expect(roundTrip(minor, decimals)).toBe(minor);
        },
      ),
      { numRuns: 2000 },
    );
    // Why the limit is 15 digits: 16 may not survive the double (90071992547409.91 prints as …409.9).
    expect(JSON.stringify(minorToNumber(9007199254740991, 2))).toBe("90071992547409.9");
  });

  it("write plain decimal text with the wallet's decimals", () => {
    expect(minorToText(150050, 2)).toBe("1500.50");
    expect(minorToText(5, 2)).toBe("0.05");
    expect(minorToText(-5, 2)).toBe("-0.05");
    expect(minorToText(12000, 0)).toBe("12000");
    expect(minorToText(1, 8)).toBe("0.00000001");
  });
});

describe("post dates", () => {
  it("titleDate writes the plugin's UTC title date", () => {
    expect(titleDate(EXAMPLE_S)).toBe("Monday 5th of September 2022 @ 02:15:07 PM");
  });

  it("displayDate writes D, M j, Y<br>g:i A in the site timezone", () => {
    expect(displayDate(EXAMPLE_S, "UTC")).toBe("Mon, Sep 5, 2022<br>2:15 PM");
    expect(displayDate(EXAMPLE_S, "Africa/Lagos")).toBe("Mon, Sep 5, 2022<br>3:15 PM");
    expect(displayDate(EXAMPLE_S, "Pacific/Kiritimati")).toBe("Tue, Sep 6, 2022<br>4:15 AM");
  });

  it("mysqlDate writes YYYY-MM-DD HH:MM:SS in the given timezone", () => {
    expect(mysqlDate(EXAMPLE_S, "UTC")).toBe("2022-09-05 14:15:07");
    expect(mysqlDate(EXAMPLE_S, "Africa/Lagos")).toBe("2022-09-05 15:15:07");
    expect(mysqlDate(EXAMPLE_S, "America/New_York")).toBe("2022-09-05 10:15:07");
    // A fixed offset, as WordPress's manual "UTC+5:45" setting, reads as the zone that keeps it.
    expect(mysqlDate(EXAMPLE_S, "+05:45")).toBe("2022-09-05 20:00:07");
    expect(mysqlDate(EXAMPLE_S, "-03:30")).toBe(mysqlDate(EXAMPLE_S - 3.5 * 3600, "UTC"));
  });

  it("mysqlDate counts the years before 1 as ISO 8601 does: 0, then -1", () => {
    const zeroS = new Date("0000-01-01T00:00:00Z").getTime() / 1000;
    expect(mysqlDate(zeroS, "UTC")).toBe("0000-01-01 00:00:00");
    // New York kept its local mean time then, 4:56:02 behind UTC.
    expect(mysqlDate(zeroS, "America/New_York")).toBe("-0001-12-31 19:03:58");
    expect(mysqlDate(new Date("0099-12-31T23:59:59Z").getTime() / 1000, "UTC")).toBe(
      "0099-12-31 23:59:59",
    );
  });

  it("writes midnight as 12 AM and noon as 12 PM", () => {
    const midnight = Date.UTC(2023, 0, 1, 0, 5, 9) / 1000;
    const noon = Date.UTC(2023, 0, 1, 12, 0, 0) / 1000;
    expect(titleDate(midnight)).toBe("Sunday 1st of January 2023 @ 12:05:09 AM");
    expect(displayDate(midnight, "UTC")).toBe("Sun, Jan 1, 2023<br>12:05 AM");
    expect(mysqlDate(midnight, "UTC")).toBe("2023-01-01 00:05:09");
    expect(titleDate(noon)).toBe("Sunday 1st of January 2023 @ 12:00:00 PM");
  });

  it("writes a transfer list's date as PHP date('Y M D h:i a') did, and nothing for no time", () => {
    expect(transferListDate("2022-09-05 14:15:07")).toBe("2022 Sep Mon 02:15 pm");
    expect(transferListDate("2023-01-01 00:05:09")).toBe("2023 Jan Sun 12:05 am");
    expect(transferListDate("2023-01-01 12:00:00")).toBe("2023 Jan Sun 12:00 pm");
    expect(transferListDate("2026-11-22 03:36:00")).toBe("2026 Nov Sun 03:36 am");
    expect(transferListDate("2026-11-22")).toBe("");
  });

  // What PHP 8.2's date() writes for strtotime() of these texts (UTC), as an imported site's
  // post_date may hold them: the zero date, and a zero day rolled over.
  it("writes the list dates of a zero or rolled-over post date as PHP did", () => {
    expect(transferListDate("0000-00-00 00:00:00")).toBe("-0001 Nov Tue 12:00 am");
    expect(localListDate("0000-00-00 00:00:00").dateTime).toBe(
      "Tuesday, November 30, -0001 12:00AM",
    );
    expect(transferListDate("2022-09-00 00:00:00")).toBe("2022 Aug Wed 12:00 am");
    expect(displayDate(mysqlDateSeconds("0099-12-31 23:59:59"), "UTC")).toBe(
      "Thu, Dec 31, 0099<br>11:59 PM",
    );
    expect(titleDate(mysqlDateSeconds("0000-00-00 00:00:00"))).toBe(
      "Tuesday 30th of November -0001 @ 12:00:00 AM",
    );
  });

  it("uses English ordinals for the day, 11th to 13th included", () => {
    const expected: Record<number, string> = {
      1: "1st",
      2: "2nd",
      3: "3rd",
      4: "4th",
      11: "11th",
      12: "12th",
      13: "13th",
      21: "21st",
      22: "22nd",
      23: "23rd",
      31: "31st",
    };
    for (const [day, ordinal] of Object.entries(expected)) {
      const title = titleDate(Date.UTC(2022, 0, Number(day), 9, 0, 0) / 1000);
      expect(title).toMatch(
        new RegExp(`^[A-Z][a-z]+day ${ordinal} of January 2022 @ 09:00:00 AM$`),
      );
    }
  });
});

describe("post titles and slugs", () => {
  it("postTitle builds the contract's example title", () => {
    const wallet = { ...NAIRA, name: "Naira Wallet" };
    expect(
      postTitle({
        username: "johndoe",
        txnType: "CREDIT",
        amountMinor: 150000,
        wallet,
        createdAtS: EXAMPLE_S,
      }),
    ).toBe(CONTRACT_TITLE);
  });

  it("postTitle puts the symbol first even for a right-positioned wallet", () => {
    const wallet = {
      symbol: "RMPNCOIN",
      symbolPosition: "right" as const,
      decimals: 0,
      name: "Reward Coin",
    };
    expect(
      postTitle({
        username: "jane",
        txnType: "DEBIT",
        amountMinor: 12000,
        wallet,
        createdAtS: EXAMPLE_S,
      }),
    ).toBe(
      "TRANSACTION by jane, Type: DEBIT, Wallet Info: RMPNCOIN12,000 Reward Coin  on Monday 5th of September 2022 @ 02:15:07 PM",
    );
  });

  it("slugify gives the contract's example slug", () => {
    expect(slugify(CONTRACT_TITLE)).toBe(CONTRACT_SLUG);
  });

  it("slugify lowercases, percent-encodes non-ASCII and folds punctuation, spaces and dashes", () => {
    expect(slugify("Hello, World!")).toBe("hello-world");
    expect(slugify("1.5 Coins")).toBe("1-5-coins");
    expect(slugify("  --a  -  b--  ")).toBe("a-b");
    expect(slugify("keep_under_scores")).toBe("keep_under_scores");
    expect(slugify("Café ₦")).toBe("caf%c3%a9-%e2%82%a6");
  });

  it("slugify caps the slug at 200 characters without splitting an encoded character", () => {
    expect(slugify("a".repeat(300))).toBe("a".repeat(200));
    expect(slugify(`${"a".repeat(195)}₦₦`)).toBe("a".repeat(195));
    expect(slugify(`${"a".repeat(191)}₦₦`)).toBe(`${"a".repeat(191)}%e2%82%a6`);
    expect(slugify(CONTRACT_TITLE.repeat(3)).length).toBeLessThanOrEqual(200);
  });

  it("slugify drops tags as WordPress's regex reads them, unclosed ones kept", () => {
    expect(slugify("a<b>c<<d>e <f")).toBe("ace-f");
    // Beside the regex itself, on texts of tags, stray brackets and letters.
    const texts = fc.stringMatching(/^[<>a b]{0,40}$/);
    fc.assert(
      fc.property(texts, (t) => {
        expect(slugify(t)).toBe(slugify(t.replace(/<[^>]*>/g, "")));
      }),
    );
  });
});

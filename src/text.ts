// How text is measured, cut and trimmed, one rule for each, for every layer and the importer's
// scripts: a length in characters, and white space as the plugin's PHP read it: C's (a query's
// names in php-vars, a numeric string's ends in ledger/money.ts, strip_tags in compat/php.ts) and
// trim()'s (the plugin's fields, a password at sign-in, a serialized value the import reads).

/**
 * A text's length in characters: code points, as JSON Schema's maxLength counts them, so an emoji
 * is one character, not the two UTF-16 units JavaScript's `length` counts.
 */
export const chars = (text: string) => [...text].length;

/**
 * Whether a text has at most `max` characters. A text no longer in UTF-16 units has, which every
 * short text (an amount, a note) shows without counting: every credit asks this.
 */
export const withinChars = (text: string, max: number) => text.length <= max || chars(text) <= max;

/** A text's first `n` characters (`chars`): never half an emoji, which would be no text at all. */
export const firstChars = (text: string, n: number) =>
  text.length <= n ? text : [...text].slice(0, n).join("");

/**
 * What C's isspace() takes: what PHP skips after a `[`, what may stand around a PHP numeric string
 * (a form feed too, a NUL byte or a no-break space not), and what strip_tags takes for space.
 */
export const C_SPACE = " \t\n\v\f\r";

/** What PHP's trim() strips: C's white space without the form feed, and the NUL byte. */
const PHP_TRIM = " \t\n\r\0\x0B";

/** `text` without any of `set`'s characters at either end. */
export function trimOf(text: string, set: string) {
  let start = 0;
  let end = text.length;
  while (start < end && set.includes(text[start]!)) start++;
  while (end > start && set.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** PHP's trim(): ASCII white space and NUL only, so `"abc\u00a0"` keeps its no-break space. */
export const phpTrim = (text: string) => trimOf(text, PHP_TRIM);

// C's white space, one rule for each place the plugin's PHP read it: a query's names (php-vars),
// a numeric string's ends (ledger/money.ts), strip_tags (compat/php.ts).

/**
 * What C's isspace() takes: what PHP skips after a `[`, what may stand around a PHP numeric string
 * (a form feed too, a NUL byte or a no-break space not), and what strip_tags takes for space.
 */
export const C_SPACE = " \t\n\v\f\r";

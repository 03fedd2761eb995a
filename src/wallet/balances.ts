// Balance reads: one statement for every wallet named, so their number is bounded.

/** The most wallets one balance read may name (in either dialect). */
export const MAX_WALLETS_PER_READ = 50;

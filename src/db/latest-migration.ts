/**
 * The newest migration in drizzle/, the schema this code reads and writes (a test in
 * test/configuration.test.ts holds it to the folder, so a new migration cannot ship without it).
 * A module of its own, without imports: `npm run deploy` checks its migrations folder holds it.
 */
export const LATEST_MIGRATION = "0031_wallet_pages_by_date.sql";

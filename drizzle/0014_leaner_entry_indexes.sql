-- Fewer index writes per entry (issue 24, BENCHMARKS.md), with the same answers and guarantees.
-- transactions_slug_base served the slug counting of the first schema; since 0005 a slug is the first
-- free one among the actual slugs, probed through the UNIQUE transactions_slug index, and nothing
-- reads slug_base through an index.
DROP INDEX `transactions_slug_base`;--> statement-breakpoint
-- transfer_id and reverses_id are NULL on every credit and debit, and each wrote that NULL into both
-- indexes. Every query and trigger that uses them looks for a value (`= ?`, a join on equal ids),
-- which SQLite's planner serves from an index on the non-NULL rows; a reversal stays unique.
DROP INDEX `transactions_transfer`;--> statement-breakpoint
DROP INDEX `transactions_reverses`;--> statement-breakpoint
CREATE INDEX `transactions_transfer` ON `transactions` (`transfer_id`) WHERE "transactions"."transfer_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_reverses` ON `transactions` (`reverses_id`) WHERE "transactions"."reverses_id" IS NOT NULL;

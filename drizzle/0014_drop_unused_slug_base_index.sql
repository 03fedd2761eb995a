-- transactions_slug_base served the slug counting of the first schema. Since 0005 a slug is the first
-- free one among the actual slugs, probed through the UNIQUE transactions_slug index; no query reads
-- slug_base through an index, and every entry wrote a page of it (issue 24, BENCHMARKS.md).
DROP INDEX `transactions_slug_base`;

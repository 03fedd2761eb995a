-- Balances print as JSON numbers (contract section 4). A decimal of at most 15 significant digits
-- survives the trip through a double and back to text unchanged; one of 16 may not
-- (90071992547409.91 prints as 90071992547409.9). So no balance may pass 999,999,999,999,999
-- minor units. The 2^53 - 1 CHECK of 0000_init stays; SQLite cannot alter a CHECK in place.
CREATE TRIGGER `transactions_balance_limit` BEFORE INSERT ON `transactions`
WHEN NEW.`balance_after_minor` > 999999999999999
BEGIN
  SELECT RAISE(ABORT, 'transactions_balance_limit');
END;

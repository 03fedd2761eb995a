-- hand-written: an entry of the service's that would take a balance below -999,999,999,999,999 is an
-- overdraft (a debit, a transfer out or a reversal lowering a balance imported below zero), and the
-- CHECK transactions_no_overdraft refuses it as one: "Insufficient Balance", as docs/ledger.md says
-- of any movement lowering a balance below zero. This trigger, which SQLite runs before the CHECK,
-- answered it as past the largest balance instead. Its lower bound now holds imported entries only,
-- the one kind the overdraft CHECK lets below zero; no balance passes either bound, as before.
DROP TRIGGER `transactions_balance_limit`;
--> statement-breakpoint
CREATE TRIGGER `transactions_balance_limit` BEFORE INSERT ON `transactions`
WHEN NEW.`balance_after_minor` > 999999999999999
  OR (NEW.`balance_after_minor` < -999999999999999 AND NEW.`imported` = 1)
BEGIN
  SELECT RAISE(ABORT, 'transactions_balance_limit');
END;

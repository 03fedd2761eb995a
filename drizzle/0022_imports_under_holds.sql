-- An imported entry never lands in a user's wallet on which the service has placed a hold: the
-- hold reserved money from the balance as it stood, and the holds guard does not judge imported
-- entries (a site's history may go below zero). The importer leaves such a wallet out when it
-- plans; this refuses the one placed while an import was being written.
CREATE TRIGGER `transactions_import_under_hold` BEFORE INSERT ON `transactions`
WHEN NEW.`imported` = 1
  AND EXISTS (SELECT 1 FROM `holds` WHERE `user_id` = NEW.`user_id` AND `wallet_id` = NEW.`wallet_id`)
BEGIN
  SELECT RAISE(ABORT, 'transactions_import_under_hold');
END;

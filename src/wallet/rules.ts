// The ledger's rules a dialect applies to values it already holds: how amounts, dates and request
// keys read and write as text, and how an entry reads as a WordPress post. Pure functions (no
// database, no caller), written once in ledger/ and reached by dialects only through the service.
// Verbs answer rows and minor units; each dialect words them with these.

export { BatchAnswer, batchRecord } from "../ledger/batches";
export { seconds } from "../ledger/entries";
export { holdRecord } from "../ledger/hold-record";
export {
  amountToMinor,
  formatExact,
  formatMoney,
  major,
  minorToText,
  movedAmountText,
  numberText,
  phpIsNumeric,
  phpLeadingNumeric,
  plainDecimal,
  pluginAmountNotPositive,
  readAmount,
  storageDecimals,
} from "../ledger/money";
export {
  localListDate,
  mysqlDate,
  siteDayBounds,
  transferListDate,
  utcMs,
} from "../ledger/post-format";
export { asciiLower, asciiUpper } from "../ledger/request-key";
export {
  postDate,
  postModified,
  TransactionAnswer,
  transactionRecord,
} from "../ledger/transaction-record";
export { walletRecord } from "../ledger/wallet-record";

export { walletRecord } from "../../ledger/wallet-record";

export { walletRecord } from "../../wallet/rules";

import { createApp } from "./app";

export { HistoryGate } from "./throttle/history-gate";
export { LoginThrottle } from "./throttle/login-throttle";

export default createApp();

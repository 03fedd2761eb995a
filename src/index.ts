import { createApp } from "./app";

export { LoginThrottle } from "./throttle/login-throttle";

export default createApp();

// wallet/v1's user routes read the fields both dialects share (src/http/user-fields.ts).
export { collectUserErrors, LoginParams, UserParams } from "../../http/user-fields";

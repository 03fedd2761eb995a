// The import's own request keys: its balance adjustments are keyed under this prefix, so a second
// run finds them; a site's request_id under it is imported without a key, so none can clash.
import { requestKey } from "../../../src/ledger/request-key";

export const IMPORT_KEY_PREFIX = "wp-import:";

export const reservedRequestId = (requestId: string) =>
  requestKey(requestId).startsWith(IMPORT_KEY_PREFIX);

// A client that reads an answer no faster than a given rate: it pauses the socket whenever it is
// ahead, so TCP holds the sender back, as a slow network does. What the sender does meanwhile (keep
// reading its source, or wait) is what a streamed answer's back-pressure is about.
import { request } from "node:http";

export type SlowRead = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  seconds: number;
  /** How often `marker` occurs in the body (once per record, for a record's own key). */
  markers: number;
  /** The body's last bytes, as text. */
  tail: string;
};

/** GETs `url` reading at most `bytesPerS`; fails once `timeoutMs` has passed. Keeps no body. */
export function readSlowly(
  url: string,
  {
    headers,
    bytesPerS,
    timeoutMs,
    marker,
  }: { headers: Record<string, string>; bytesPerS: number; timeoutMs: number; marker: string },
) {
  return new Promise<SlowRead>((resolve, reject) => {
    const startedMs = Date.now();
    const req = request(url, { headers }, (res) => {
      let bytes = 0;
      let markers = 0;
      let carry = ""; // a marker may be cut between two chunks
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        const text = carry + chunk.toString("latin1");
        for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) markers++;
        carry = text.slice(-(marker.length - 1));
        const aheadMs = (bytes / bytesPerS) * 1000 - (Date.now() - startedMs);
        if (aheadMs > 0) {
          res.pause();
          setTimeout(() => res.resume(), aheadMs);
        }
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes,
          seconds: (Date.now() - startedMs) / 1000,
          markers,
          tail: carry,
        });
      });
      res.on("error", reject);
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`${url}: not read whole in ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

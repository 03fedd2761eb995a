// A V8 isolate as the DevTools protocol shows it: the worker's, through the inspector `wrangler dev`
// serves with `--inspector-port`, or one of workerd's own (the worker's, or local D1's, under
// Miniflare alone) through the runtime's inspector (scripts/lib/server.ts `inspectorPort`).
// Miniflare's `fetch` opens the WebSocket: Node 20 has no WebSocket client of its own.
import { fetch } from "miniflare";

export type HeapUsage = { usedSize: number; totalSize: number };

export type Inspector = {
  /** One protocol method, its result. */
  call<T>(method: string, params?: object): Promise<T>;
  /** `Runtime.getHeapUsage`: bytes of the isolate's JS heap in use (garbage included) and reserved. */
  heapUsage(): Promise<HeapUsage>;
  /**
   * A full garbage collection (`HeapProfiler.collectGarbage`), then the heap's usage. V8 collects in
   * a task on the isolate's thread, which workerd runs only when the isolate next runs: `wake` sends
   * the worker a request (a cheap one), repeated until the collection has answered.
   */
  heapAfterGc(wake: () => Promise<unknown>): Promise<HeapUsage>;
  close(): void;
};

const CALL_TIMEOUT_MS = 30_000;

/** workerd's name for the isolate of the worker Miniflare serves (the bench's server). */
export const USER_WORKER = "core:user:";

/**
 * Connects to the isolate `id` the inspector at 127.0.0.1:`port` lists, or to the first it lists
 * (on wrangler's inspector, the served worker).
 */
export async function connectInspector(port: number, id?: string): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
    id: string;
    webSocketDebuggerUrl: string;
  }[];
  const target = id === undefined ? targets[0] : targets.find((t) => t.id === id);
  if (!target) throw new Error(`the inspector on port ${port} lists no ${id ?? "worker"}`);
  // The inspector accepts local DevTools only: a local Origin says this is one.
  const res = await fetch(target.webSocketDebuggerUrl.replace(/^ws:/, "http:"), {
    headers: { Upgrade: "websocket", Origin: "http://127.0.0.1" },
  });
  const ws = res.webSocket;
  if (!ws) throw new Error(`the inspector answered ${res.status}, not a WebSocket`);
  ws.accept();
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    const call = message.id === undefined ? undefined : waiting.get(message.id);
    if (!call) return; // an event, not an answer
    waiting.delete(message.id!);
    if (message.error) call.reject(new Error(message.error.message));
    else call.resolve(message.result);
  });
  ws.addEventListener("close", () => {
    for (const call of waiting.values()) call.reject(new Error("the inspector closed"));
    waiting.clear();
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`${method}: no answer in ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const heapUsage = () => send<HeapUsage>("Runtime.getHeapUsage");
  return {
    call: send,
    heapUsage,
    async heapAfterGc(wake) {
      let collected = false;
      const collecting = send("HeapProfiler.collectGarbage").finally(() => {
        collected = true;
      });
      for (let tries = 0; !collected && tries < 50; tries++) {
        await wake();
        await Promise.race([collecting, new Promise((r) => setTimeout(r, 100))]);
      }
      await collecting;
      return heapUsage();
    },
    close: () => ws.close(),
  };
}

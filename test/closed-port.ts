// The tests stand for a receiver that is down with a webhook on 127.0.0.1:9, where nothing listens.
// Connecting there would show the service's handling as well, but the test pool's workerd logs each
// refused connection as an uncaught exception besides the error it throws, five lines of noise in a
// green run. So a fetch to that port fails here at once, with the error the runtime throws.
const CLOSED = "127.0.0.1:9";
// The runtime's own fetch, kept across the files that share a worker (vitest.config.ts): each file
// runs this setup again, and wraps that fetch rather than the wrapper the file before it left.
const RUNTIME_FETCH = Symbol.for("wallet-ledger test: the runtime's fetch");
const kept = globalThis as typeof globalThis & { [RUNTIME_FETCH]?: typeof fetch };
kept[RUNTIME_FETCH] ??= globalThis.fetch;
const connect = kept[RUNTIME_FETCH];

globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  return url.host === CLOSED
    ? Promise.reject(new Error("Network connection lost."))
    : connect(input, init);
};

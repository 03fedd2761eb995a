// The tests stand for a receiver that is down with a webhook on 127.0.0.1:9, where nothing listens.
// Connecting there would show the service's handling as well, but the test pool's workerd logs each
// refused connection as an uncaught exception besides the error it throws, five lines of noise in a
// green run. So a fetch to that port fails here at once, with the error the runtime throws.
const CLOSED = "127.0.0.1:9";
const connect = globalThis.fetch;

globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  return url.host === CLOSED
    ? Promise.reject(new Error("Network connection lost."))
    : connect(input, init);
};

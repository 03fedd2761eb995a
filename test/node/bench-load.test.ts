// The bench's load (scripts/bench/load.ts) against a server that ends every connection after a few
// answers, as workerd does with a batch of keep-alive connections under load (BENCHMARKS.md,
// "Connections closed, rarely, by workerd"): autocannon reconnects on those FINs without counting
// them; the load must count each as an error.
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runLoad } from "../../scripts/bench/load";

const ANSWERS_PER_CONNECTION = 5;
let server: net.Server;
let base: string;

beforeAll(async () => {
  server = net.createServer((socket) => {
    let answered = 0;
    socket.on("error", () => {});
    socket.on("data", () => {
      if (answered >= ANSWERS_PER_CONNECTION) return;
      answered++;
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      if (answered === ANSWERS_PER_CONNECTION) socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("counts the connections the server ends unanswered among the errors", async () => {
  const load = await runLoad({
    base,
    request: { method: "GET", path: "/" },
    duration: 1,
    connections: 2,
  });
  expect(load.connectionErrors).toBe(0); // autocannon saw nothing wrong
  expect(load.closedByServer).toBeGreaterThan(0);
  // Every close but those cut short by the end of the run follows the fifth answer.
  expect(Math.abs(load.closedByServer - load.ok / ANSWERS_PER_CONNECTION)).toBeLessThanOrEqual(2);
  expect(load.errors).toBe(load.closedByServer);
  expect(load.errorSamples[0]?.body).toMatch(/^FIN/);
});

// A D1 binding as if the database were a network hop away, for `npm run bench -- --remote-d1`:
// every call waits what the model (model.ts) says before it goes to the real (local) D1, so a write
// waits for the one writer and then its round trip. Each request waits on its own timer, in its own
// context: no request resumes another (what group-commit.ts explains the runtime does not allow).
// It wraps the binding and a session of it alike, so the app's sessions, meter and group commit
// run over it unchanged; statements pass into a batch unwrapped.
import { type RemoteD1Model, writes } from "./model";

const INNER = Symbol("latency-d1 inner");
const SQL = Symbol("latency-d1 sql");

type Wrapped = D1PreparedStatement & { [INNER]?: D1PreparedStatement; [SQL]?: string };

const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

/** Sends `call` after the delay the model gives a call of `writeStatements` writing statements. */
async function send<T>(model: RemoteD1Model, writeStatements: number, call: () => Promise<T>) {
  const delayMs = model.delayMs(Date.now(), writeStatements);
  if (delayMs > 0) await pause(delayMs);
  return call();
}

function statement(inner: D1PreparedStatement, sql: string, model: RemoteD1Model) {
  const writeCount = writes(sql) ? 1 : 0;
  return new Proxy(inner, {
    get(target, prop) {
      switch (prop) {
        case INNER:
          return target;
        case SQL:
          return sql;
        case "bind":
          return (...values: unknown[]) => statement(target.bind(...values), sql, model);
        case "run":
        case "all":
        case "first":
        case "raw":
          return (...args: unknown[]) =>
            send(model, writeCount, () =>
              (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args),
            );
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

type D1Like = D1Database | D1DatabaseSession;

function database<T extends D1Like>(d1: T, model: RemoteD1Model): T {
  return new Proxy(d1, {
    get(target, prop) {
      switch (prop) {
        case "prepare":
          return (query: string) => statement(target.prepare(query), query, model);
        case "batch":
          return (statements: Wrapped[]) => {
            const written = statements.filter((s) => writes(s[SQL] ?? "")).length;
            const inner = statements.map((s) => s[INNER] ?? s);
            return send(model, written, () => target.batch(inner));
          };
        case "exec":
          return (query: string) => send(model, 1, () => (target as D1Database).exec(query));
        case "withSession":
          return (...args: Parameters<D1Database["withSession"]>) =>
            database((target as D1Database).withSession(...args), model);
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `d1` as the model sees it: one model (one writer) per wrapped binding. */
export const latencyD1 = (d1: D1Database, model: RemoteD1Model) => database(d1, model);

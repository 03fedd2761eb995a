// `node --import` hook for tools that load the service's modules in Node (scripts/openapi.ts):
// `cloudflare:workers` exists only in workerd, and those modules use it only for a Durable
// Object's base class, which a tool never instantiates.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "cloudflare:workers")
      return { url: "stub:cloudflare-workers", shortCircuit: true };
    return next(specifier, context);
  },
  load(url, context, next) {
    if (url === "stub:cloudflare-workers")
      return { format: "module", source: "export class DurableObject {}", shortCircuit: true };
    return next(url, context);
  },
});

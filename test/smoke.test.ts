import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { createApp } from "../src/app";

it("answers discovery", async () => {
  const res = await createApp().request("/wp-json/wallet/v1", {}, env);
  expect(res.status).toBe(200);
  const body = await res.json<{ namespace: string }>();
  expect(body.namespace).toBe("wallet/v1");
});

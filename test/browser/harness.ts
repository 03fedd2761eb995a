// What every browser test starts from: Debian's chromium (never a downloaded browser; CHROMIUM_PATH
// names another), and the API called as a user, its data read back.
import { chromium } from "playwright-core";
import { expect } from "vitest";

export const launchChromium = () =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });

/** A caller of the API at `base` with `auth`: each answer must be a success, and its data is returned. */
export const apiAs =
  (base: string, auth: string) => async (method: string, route: string, json?: unknown) => {
    const res = await fetch(`${base}${route}`, {
      method,
      headers: {
        Authorization: auth,
        ...(json === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    expect(res.status, `${method} ${route}: ${text}`).toBeLessThan(300);
    return JSON.parse(text).data;
  };

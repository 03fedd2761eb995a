// What the console's tests share: a request to one of its pages as a browser sends it (a cookie,
// no redirect followed), a redirect followed with its notice, a form sent and the page it shows, a
// form body, a hidden field of a page, and a sign-in's session cookie.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { PASSWORD, testApp } from "./helpers";

export const CONSOLE = "http://localhost/wallet-admin";

export type Page = { status: number; html: string; headers: Headers };

export type PageRequest = RequestInit & { cookie?: string; vars?: Record<string, unknown> };

/** Requests to the console of `app` (its env: the test's, with `vars` over it). */
export function consoleOf(app = testApp()) {
  async function request(path: string, init: PageRequest = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (init.cookie) headers.set("Cookie", init.cookie);
    const url = path.startsWith("http") ? path : `${CONSOLE}${path}`;
    const res = await app.request(
      url,
      { ...init, headers, redirect: "manual" },
      { ...env, ...init.vars },
    );
    return { status: res.status, html: await res.text(), headers: res.headers };
  }
  /** The session cookie (name=value) a sign-in by `user` sets. */
  async function signIn(user: { email: string }) {
    const res = await request("/sign-in", {
      method: "POST",
      body: form({ email: user.email, password: PASSWORD }),
    });
    expect(res.status, res.html).toBe(303);
    return res.headers.get("set-cookie")!.split(";")[0]!;
  }
  /** The page a redirect sends the browser to, with the cookies it left (a notice, a secret). */
  function follow(res: Page, cookie: string) {
    const left = res.headers
      .getSetCookie()
      .filter((c) => !/Max-Age=0/i.test(c))
      .map((c) => c.split(";")[0]);
    return request(res.headers.get("location")!.replace("/wallet-admin", ""), {
      cookie: [cookie, ...left].join("; "),
    });
  }
  /** The page a form's answer shows, sent with `cookie`: the page it redirects to, or the answer. */
  async function shown(path: string, fields: Record<string, string>, cookie: string) {
    const res = await request(path, { method: "POST", cookie, body: form(fields) });
    return res.status === 303 ? follow(res, cookie) : res;
  }
  return { request, signIn, follow, shown };
}

export const NOTICE = "wallet_admin_notice";
/** The notice cookie a redirect set (`name=value; attributes`; on https `__Host-name`), if any. */
export const noticeCookie = (res: { headers: Headers }) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${NOTICE}=`) || c.startsWith(`__Host-${NOTICE}=`));

/** The notice a console redirect left for the next page to show (`ok:…`, `error:…`), or "". */
export function noticeLeft(res: { headers: Headers }) {
  const set = noticeCookie(res);
  if (!set) return "";
  const signed = decodeURIComponent(set.slice(set.indexOf("=") + 1, set.indexOf(";")));
  // The value without its signature: [kind, the page it is for, text].
  const [kind, , text] = JSON.parse(signed.slice(0, signed.lastIndexOf("."))) as string[];
  return `${kind}:${text}`;
}

export const form = (fields: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]));

export const hidden = (html: string, name: string) =>
  html.match(new RegExp(`name="${name}" value="([^"]+)"`))?.[1] ?? "";

/** The hidden fields of the form of `html` that posts to `action` (its path under the console). */
export function hiddenFields(html: string, action: string) {
  const start = html.indexOf(`action="/wallet-admin${action}"`);
  const body = html.slice(start, html.indexOf("</form>", start));
  const unescaped = (text: string) =>
    text.replace(/&(amp|quot|#39|lt|gt);/g, (_, e: string) =>
      e === "amp" ? "&" : e === "quot" ? '"' : e === "#39" ? "'" : e === "lt" ? "<" : ">",
    );
  return Object.fromEntries(
    [...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map(
      ([, name, value]) => [name!, unescaped(value!)],
    ),
  );
}

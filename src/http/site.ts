// The site's own address, the base of guids, links, the discovery index and the OpenAPI servers:
// SITE_URL when set, else the address the request came to. Behind Cloudflare that is the hostname
// the Worker was routed by (its workers.dev name or a custom domain), not a header a client chose.
// And the address the request came from, as the throttles count it.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { EntryStamp } from "../ledger/entries";
import type { SiteSettings } from "../ledger/transaction-record";
import { configuredSiteUrl, settingProblems, siteTimeZone } from "../settings";
import { logOnce } from "./log-once";

/**
 * The site's base URL, without a trailing slash. An unusable SITE_URL is never put in an answer:
 * the service answers 503 naming it, with links to the origin the request came to.
 */
export function siteUrl(c: Context<AppEnv>): string {
  const set = configuredSiteUrl(c.env);
  if (set === "")
    logOnce(
      "SITE_URL unset",
      {
        request_id: c.get("requestId") ?? null,
        setting: "SITE_URL",
        notice: "SITE_URL is unset: links and new guids use the origin each request came to",
      },
      "log",
    );
  else if (!settingProblems(c.env).some((p) => p.name === "SITE_URL")) return set;
  return new URL(c.req.url).origin;
}

/** The site a record is worded for: its URL (guids, links) and SITE_TIMEZONE (WordPress's dates). */
export const siteSettings = (c: Context<AppEnv>): SiteSettings => ({
  siteUrl: siteUrl(c),
  timeZone: siteTimeZone(c.env),
});

/**
 * When and through which site a new entry is written. With SITE_URL set, its guid is built when it
 * is read, from SITE_URL (guidSite null); without it, the guid names the origin it was written
 * through and is stored with the entry, so another host's request reads the same guid.
 */
export const entryStamp = (c: Context<AppEnv>): EntryStamp => ({
  nowMs: c.get("nowMs")(),
  guidSite: configuredSiteUrl(c.env) === "" ? siteUrl(c) : null,
});

/**
 * The client's address, CF-Connecting-IP: Cloudflare sets it on every request (a Transform Rule
 * may remove it; a Worker calling through a service binding sends it only if it passes it on) and
 * wrangler dev from the socket. Without it every such client counts as one address for the sign-in
 * throttle and the mail limits, so a stranger could lock a login for everyone: the first request
 * to find it missing says so.
 */
export function clientAddress(c: Context<AppEnv>): string | undefined {
  const address = c.req.header("cf-connecting-ip");
  if (address === undefined || address.trim() === "")
    logOnce(
      "CF-Connecting-IP missing",
      {
        request_id: c.get("requestId") ?? null,
        setting: "CF-Connecting-IP",
        notice:
          "a request came without CF-Connecting-IP: the sign-in throttle and mail limits count every such request as one client address (docs/deploying.md)",
      },
      "error",
    );
  return address;
}

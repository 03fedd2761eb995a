// A dump that repeats a post_name or guid, as a site whose plugin wrote concurrently has them: the
// import keeps the first and gives the later post what wp_unique_post_slug would have, without
// taking a slug that a later post of the dump holds.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { CLEAN, ledgerViolations } from "./helpers";
import { dump, runImport, wordpress } from "./import-helpers";

it("keeps slugs and guids unique the WordPress way when the dump repeats one", async () => {
  // Post 21 shares post 20's post_name and guid; 22 holds that post_name's `-2`, and 23 its
  // `-3-2` (not a suffix of the repeated slug).
  const post = (id: number) => wordpress.transactions.find((t) => t.ID === id)!;
  const [p20, p21, p22, p23] = [post(20), post(21), post(22), post(23)];
  const slug = p20.post_name;
  const text = dump
    .replaceAll(`'${p21.guid}'`, `'${p20.guid}'`)
    .replaceAll(`'${p21.post_name}'`, `'${slug}'`)
    .replaceAll(`'${p22.post_name}'`, `'${slug}-2'`)
    .replaceAll(`'${p23.post_name}'`, `'${slug}-3-2'`);
  const run = await runImport({}, text);
  expect(run.report.refused).toBe(false);
  const rows = await env.DB.prepare(
    "SELECT id, slug, guid FROM transactions WHERE id BETWEEN 20 AND 23 ORDER BY id",
  ).all();
  expect(rows.results).toEqual([
    { id: 20, slug, guid: p20.guid },
    { id: 21, slug: `${slug}-3`, guid: null },
    { id: 22, slug: `${slug}-2`, guid: p22.guid },
    { id: 23, slug: `${slug}-3-2`, guid: p23.guid },
  ]);
  expect(await ledgerViolations()).toEqual(CLEAN);
});

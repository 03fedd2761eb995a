// A dump that repeats a post_name or guid (WordPress never writes one, a hand-edited site might):
// the import keeps the first and gives the later post what wp_unique_post_slug would have.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { CLEAN, ledgerViolations } from "./helpers";
import { dump, runImport, wordpress } from "./import-helpers";

it("keeps slugs and guids unique the WordPress way when the dump repeats one", async () => {
  // Post 21 made to share post 20's post_name and guid, as a hand-edited site might.
  const [p20, p21] = [20, 21].map((id) => wordpress.transactions.find((t) => t.ID === id)!) as [
    Record<string, any>,
    Record<string, any>,
  ];
  const text = dump
    .replaceAll(`'${p21.guid}'`, `'${p20.guid}'`)
    .replaceAll(`'${p21.post_name}'`, `'${p20.post_name}'`);
  const run = await runImport({}, text);
  expect(run.report.refused).toBe(false);
  const rows = await env.DB.prepare(
    "SELECT id, slug, guid FROM transactions WHERE id IN (20, 21) ORDER BY id",
  ).all();
  expect(rows.results).toEqual([
    { id: 20, slug: p20.post_name, guid: p20.guid },
    { id: 21, slug: `${p20.post_name}-2`, guid: null },
  ]);
  expect(await ledgerViolations()).toEqual(CLEAN);
});

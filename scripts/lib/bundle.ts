// The worker as `wrangler deploy` would upload it: `wrangler deploy --dry-run --outdir <outdir>`.
import { readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { wrangler } from "./wrangler";

/**
 * Bundles `config`'s worker into `outdir`: the file of its `main` module (else the largest .js
 * written) and wrangler's output.
 */
export function bundle({
  config,
  outdir,
  main,
}: {
  config: string;
  outdir: string;
  main?: string;
}) {
  const stdout = wrangler(["deploy", "--dry-run", "--outdir", outdir, "--config", config], {
    quiet: true,
  });
  const jsFiles = readdirSync(outdir).filter((f) => f.endsWith(".js"));
  const wanted = main ? `${basename(main, extname(main))}.js` : undefined;
  const file =
    wanted && jsFiles.includes(wanted)
      ? wanted
      : jsFiles.sort((a, b) => statSync(join(outdir, b)).size - statSync(join(outdir, a)).size)[0];
  if (!file) throw new Error(`wrangler deploy --dry-run wrote no .js file into ${outdir}`);
  return { file, stdout };
}

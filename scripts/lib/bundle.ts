// The worker as `wrangler deploy` would upload it: `wrangler deploy --dry-run --outdir <outdir>`.
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
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
  // In the config's folder: its [build] command fills that checkout's assets, not this one's.
  const stdout = wrangler(
    ["deploy", "--dry-run", "--outdir", resolve(outdir), "--config", resolve(config)],
    { quiet: true, cwd: dirname(resolve(config)) },
  );
  const file = bundleFile(outdir, main);
  if (!file) throw new Error(`wrangler deploy --dry-run wrote no .js file into ${outdir}`);
  return { file, stdout };
}

/** The file of `main` among the .js files in `outdir`, else the largest; none when it holds none. */
export function bundleFile(outdir: string, main?: string) {
  const jsFiles = readdirSync(outdir).filter((f) => f.endsWith(".js"));
  const wanted = main ? `${basename(main, extname(main))}.js` : undefined;
  return wanted && jsFiles.includes(wanted)
    ? wanted
    : jsFiles.sort((a, b) => statSync(join(outdir, b)).size - statSync(join(outdir, a)).size)[0];
}

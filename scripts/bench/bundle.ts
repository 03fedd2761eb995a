// Bundle size as deployed: `wrangler deploy --dry-run --outdir <tmp>`, the main .js raw and gzipped.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { bundle } from "../lib/bundle";

export function bundleSize({
  config = "wrangler.toml",
  main,
}: {
  config?: string;
  main?: string;
} = {}) {
  const outdir = mkdtempSync(join(tmpdir(), "wallet-bundle-"));
  try {
    const { file, stdout } = bundle({ config, outdir, main });
    const code = readFileSync(join(outdir, file));
    // wrangler's own summary line, e.g. "Total Upload: 512.34 KiB / gzip: 98.76 KiB"
    const reported = /Total Upload:\s*([\d.]+ \w+)\s*\/\s*gzip:\s*([\d.]+ \w+)/.exec(stdout);
    return {
      config,
      file,
      rawBytes: code.length,
      gzipBytes: gzipSync(code, { level: 9 }).length,
      wranglerReported: reported ? { total: reported[1], gzip: reported[2] } : null,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

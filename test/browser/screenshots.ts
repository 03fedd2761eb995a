// Where the browser tests' screenshots go: docs/console/ with UPDATE_SCREENSHOTS=1 (the docs'
// pictures), else `kept` when given (a folder to look at), else a temporary folder removed at the end.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";

export function screenshotFolder(prefix: string, kept?: string) {
  const updating = process.env.UPDATE_SCREENSHOTS === "1";
  const dir = updating ? "docs/console" : (kept ?? mkdtempSync(path.join(tmpdir(), prefix)));
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    /** The page, whole, at desktop and at phone width (`<name>-desktop.png`, `<name>-phone.png`). */
    async shoot(page: Page, name: string) {
      for (const [suffix, width] of [
        ["desktop", 1280],
        ["phone", 390],
      ] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: path.join(dir, `${name}-${suffix}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    },
    /** Removes a temporary folder (never docs/console/ or a kept one). */
    remove() {
      if (!updating && kept === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

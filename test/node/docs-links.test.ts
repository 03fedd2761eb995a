// Every relative link and image in the Markdown the repository ships names a file that exists, and
// every #anchor a heading of that file, as GitHub slugs headings: a renamed heading or a moved file
// fails here instead of leaving a reader at the top of a page, or at none. The same holds for the
// docs a comment in src/, scripts/, test/, bench/ or clients/ points to
// (`docs/events.md#which-urls`).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import { Lexer, type Token } from "marked";
import { expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

const FILES = [
  "README.md",
  "BENCHMARKS.md",
  "CHANGELOG.md",
  ...readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join("docs", name)),
];

/** A token's text as rendered, without its markup: what GitHub slugs a heading from. */
const plain = (tokens: Token[]): string =>
  tokens
    .map((t) => ("tokens" in t && t.tokens ? plain(t.tokens) : "text" in t ? t.text : ""))
    .join("");

/** Each file's tokens, with the links in it and the anchors its headings make. */
const parsed = new Map(
  FILES.map((file) => {
    const links: string[] = [];
    const anchors = new Set<string>();
    const slugger = new GithubSlugger();
    const tokens = new Lexer().lex(readFileSync(path.join(ROOT, file), "utf8"));
    const walk = (list: Token[]) => {
      for (const t of list) {
        if (t.type === "heading") anchors.add(slugger.slug(plain(t.tokens ?? [])));
        if (t.type === "link" || t.type === "image") links.push(t.href);
        if ("tokens" in t && t.tokens) walk(t.tokens);
        if (t.type === "list") walk(t.items);
        if (t.type === "table")
          for (const cell of [...t.header, ...t.rows.flat()]) walk(cell.tokens);
      }
    };
    walk(tokens);
    return [file, { links, anchors }] as const;
  }),
);

it.each(FILES)("%s links only to files and headings that exist", (file) => {
  const broken: string[] = [];
  for (const href of parsed.get(file)!.links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: and the like
    const [target = "", anchor] = href.split("#");
    const linked =
      target === "" ? file : path.normalize(path.join(path.dirname(file), decodeURI(target)));
    if (!existsSync(path.join(ROOT, linked))) broken.push(`${href}: no file ${linked}`);
    else if (anchor !== undefined && linked.endsWith(".md")) {
      const anchors = parsed.get(linked)?.anchors;
      if (!anchors) broken.push(`${href}: ${linked} is not among the files checked`);
      else if (!anchors.has(decodeURIComponent(anchor)))
        broken.push(`${href}: no heading #${anchor} in ${linked}`);
    }
  }
  expect(broken).toEqual([]);
});

const SOURCES = ["src", "scripts", "test", "bench", "clients"].flatMap((dir) =>
  readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(ts|tsx|mjs|php)$/.test(name))
    .map((name) => path.join(dir, name)),
);

it("the docs that comments in src/, scripts/, test/, bench/ and clients/ point to exist, with their headings", () => {
  const broken: string[] = [];
  for (const file of SOURCES) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    for (const [, doc = "", anchor] of text.matchAll(
      /\b((?:docs\/[\w-]+|BENCHMARKS|README|CHANGELOG)\.md)(?:#([\w-]+))?/g,
    )) {
      const anchors = parsed.get(doc)?.anchors;
      if (!anchors) broken.push(`${file}: no file ${doc}`);
      else if (anchor !== undefined && !anchors.has(anchor))
        broken.push(`${file}: no heading #${anchor} in ${doc}`);
    }
  }
  expect(broken).toEqual([]);
});

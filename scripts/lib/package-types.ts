// Preloaded into every tool (`--import`, after tsx's loader). Node 22 to 26 looks up the package of
// each ES module it loads to read its "type", and parses that package's whole "exports" map again
// each time: drizzle-orm's package.json is 179 KB and its ES build 450 files, which made loading it
// take 1.2 s instead of 0.1 s, in every tool's start. This hook answers the common case itself,
// reading each package.json once: a relative import of a .js or .mjs file, made by an ES module
// inside node_modules, in a package whose "type" is "module". Every other import goes to Node.
import { existsSync, readFileSync } from "node:fs";
import module from "node:module";

/** Whether the package a folder belongs to is of type "module", by folder URL. */
const moduleFolders = new Map<string, boolean>();

function inModulePackage(folder: URL): boolean {
  let answer = moduleFolders.get(folder.href);
  if (answer === undefined) {
    answer = readType(folder);
    moduleFolders.set(folder.href, answer);
  }
  return answer;
}

function readType(folder: URL): boolean {
  let text: string;
  try {
    text = readFileSync(new URL("package.json", folder), "utf8");
  } catch {
    // None here: the folder above decides, as in Node's look-up, which stops at node_modules.
    const parent = new URL("..", folder);
    return (
      !folder.pathname.endsWith("/node_modules/") &&
      parent.href !== folder.href &&
      inModulePackage(parent)
    );
  }
  try {
    return JSON.parse(text).type === "module";
  } catch {
    return false; // Node reports a package.json it cannot parse.
  }
}

// Node 20 has neither the cost nor registerHooks (Node 22.15 on): nothing to spare there.
module.registerHooks?.({
  resolve(specifier, context, next) {
    const parent = context.parentURL;
    if (
      parent?.startsWith("file:") &&
      parent.includes("/node_modules/") &&
      context.conditions.includes("import") &&
      (specifier.startsWith("./") || specifier.startsWith("../")) &&
      /\.m?js$/.test(specifier)
    ) {
      const url = new URL(specifier, parent);
      // A file that is not there is Node's to report, in its words.
      if (existsSync(url) && (specifier.endsWith(".mjs") || inModulePackage(new URL(".", url))))
        return { url: url.href, format: "module", shortCircuit: true };
    }
    return next(specifier, context);
  },
});

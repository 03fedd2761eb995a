// The slug each imported entry asks for. The first post of the dump to hold a post_name keeps it; a
// later one gets the first `<post_name>-N` (N = 2, 3, …) that no post of the dump holds and no
// earlier post was given, so a renamed post never takes the slug a later post of the site holds.
import { SLUG_MAX } from "../../../src/ledger/post-format";
import { FingerprintSet } from "./fingerprints";

export class SlugClaims {
  private readonly claimed = new FingerprintSet();

  /** `dumpSlugs`: the post_name of every entry the plan imports. */
  constructor(private readonly dumpSlugs: FingerprintSet) {}

  claim(slug: string) {
    if (slug === "" || this.claimed.add(slug)) return slug;
    for (let n = 2; ; n++) {
      const candidate = suffixed(slug, n);
      if (!this.dumpSlugs.has(candidate) && this.claimed.add(candidate)) return candidate;
    }
  }
}

/** `slug-n` within SLUG_MAX characters, the slug cut as src/ledger/unique-slug.ts cuts it. */
function suffixed(slug: string, n: number) {
  const keep = SLUG_MAX - 1 - String(n).length;
  return `${Array.from(slug).slice(0, keep).join("").replace(/-+$/, "")}-${n}`;
}

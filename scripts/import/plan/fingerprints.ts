// What stays in memory per transaction: 64-bit fingerprints of its (user, request_id) and its slug,
// to find repeats in a dump of millions of transactions.

/** A growable set of 64-bit fingerprints (two 32-bit lanes, open addressing): 8 bytes a slot. */
export class FingerprintSet {
  size = 0;
  private capacity = 0;
  private hi = new Uint32Array(0);
  private lo = new Uint32Array(0);

  constructor() {
    this.alloc(1 << 16);
  }

  private alloc(capacity: number) {
    this.capacity = capacity;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
  }

  private static hash(text: string) {
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return [h1 >>> 0 || 1, h2 >>> 0] as const;
  }

  has(text: string) {
    const [h, l] = FingerprintSet.hash(text);
    for (let i = (h ^ l) & (this.capacity - 1); this.hi[i] !== 0; i = (i + 1) & (this.capacity - 1))
      if (this.hi[i] === h && this.lo[i] === l) return true;
    return false;
  }

  /** Adds; false when it was there already. */
  add(text: string) {
    if ((this.size + 1) * 2 > this.capacity) this.grow();
    const [h, l] = FingerprintSet.hash(text);
    return this.insert(h, l);
  }

  private insert(h: number, l: number) {
    let i = (h ^ l) & (this.capacity - 1);
    while (this.hi[i] !== 0) {
      if (this.hi[i] === h && this.lo[i] === l) return false;
      i = (i + 1) & (this.capacity - 1);
    }
    this.hi[i] = h;
    this.lo[i] = l;
    this.size++;
    return true;
  }

  private grow() {
    const [hi, lo] = [this.hi, this.lo];
    this.alloc(this.capacity * 2);
    this.size = 0;
    for (let i = 0; i < hi.length; i++) if (hi[i] !== 0) this.insert(hi[i]!, lo[i]!);
  }
}

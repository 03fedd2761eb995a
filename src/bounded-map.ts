/**
 * A Map that holds at most `limit` keys, dropping the oldest added when a new one comes: for what an
 * isolate remembers across requests (verified tokens, routes, facts read from D1), so that no
 * client can grow it without bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V) {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/**
 * `compute` memoized by its argument, an object (an env, a D1 binding, a schema's entries): worked
 * out once and kept for as long as that object lives, as an isolate keeps its env and its binding.
 */
export function perObject<K extends object, V>(compute: (key: K) => V) {
  const known = new WeakMap<K, V>();
  return (key: K) => {
    let value = known.get(key);
    if (value === undefined) known.set(key, (value = compute(key)));
    return value;
  };
}

// Vite's `?raw` imports (fixtures read as text inside the Workers runtime).
declare module "*?raw" {
  const text: string;
  export default text;
}

// Vite's `import.meta.glob`, as the tests use it, eagerly: files read as text, or modules whole.
interface ImportMeta {
  glob<T>(
    pattern: string,
    options: { query: "?raw"; import: "default"; eager: true } | { eager: true },
  ): Record<string, T>;
}

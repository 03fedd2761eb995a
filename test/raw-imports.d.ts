// Vite's `?raw` imports (fixtures read as text inside the Workers runtime).
declare module "*?raw" {
  const text: string;
  export default text;
}

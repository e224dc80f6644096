/** Vite's `?raw` imports: a file's text, bundled (docs/errors.md for the error panel). */
declare module '*.md?raw' {
  const text: string;
  export default text;
}

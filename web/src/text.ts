// Text as the gateway measures it. `maxMessageLength` counts characters as code points (what
// `[...text].length` counts), not UTF-16 units: an emoji is one character, not two.

/** The characters of `text` as the server counts them (code points). */
export function characterCount(text: string): number {
  return [...text].length;
}

// What the bundled model modules take from node:crypto, from the browser's own Web Crypto.
export function randomUUID(): string {
  return globalThis.crypto.randomUUID();
}

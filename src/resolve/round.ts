/**
 * Rounds to 4 decimals. Resolution output is serialized to JSON and compared across runs, so
 * float noise such as `0.18 - 0.1215 = 0.058499999999999996` must not leak into responses.
 */
export function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

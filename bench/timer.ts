/** Milliseconds since an arbitrary origin, with sub-millisecond precision. */
export const now = (): number => performance.now();

/** The value at fraction `q` (0–1) of `values`, by nearest rank; `NaN` when empty. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median of `values`. */
export const median = (values: readonly number[]): number => percentile(values, 0.5);

/** Resident set size in MiB. */
export const rssMiB = (): number => process.memoryUsage().rss / 2 ** 20;

/** Runs the garbage collector when node was started with `--expose-gc`. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

import { fmt } from "../table.js";
import { median, percentile } from "../timer.js";

/** A measure over runs: its median, quartiles and extremes. */
export interface Spread {
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
  runs: number;
}

/** The spread of `values`; `undefined` when there are none. */
export function spreadOf(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  return {
    median: median(values),
    p25: percentile(values, 0.25),
    p75: percentile(values, 0.75),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: values.length,
  };
}

/** `median (p25–p75)` with a unit, as the streaming tables print a measure. */
export function fmtSpread(spread: Spread | undefined, unit = ""): string {
  if (!spread) return "—";
  const bare = (value: number) => fmt(value);
  return `${fmt(spread.median, unit)} (${bare(spread.p25)}–${bare(spread.p75)})`;
}

/** One row of a benchmark table: a case, ours beside the anchor, and the target. */
export interface Row {
  case: string;
  ours: string;
  anchor: string;
  /** ours ÷ anchor, as text (`0.21×`), or `—` when a ratio means nothing. */
  ratio: string;
  target: string;
  /** Whether the target is met: `yes`, `no`, or `—` for a row without a target. */
  met: string;
}

/** Formats `ours / anchor` as a ratio such as `0.25×`; `—` when either is missing or zero. */
export function ratio(ours: number | undefined, anchor: number | undefined): string {
  if (ours === undefined || anchor === undefined || anchor === 0 || !Number.isFinite(ours / anchor)) return "—";
  const value = ours / anchor;
  return `${value >= 10 ? value.toFixed(0) : value >= 0.1 ? value.toFixed(2) : value.toPrecision(2)}×`;
}

/** `yes` or `no` for a row with a target; `—` without one. */
export function verdict(met: boolean | undefined): string {
  return met === undefined ? "—" : met ? "yes" : "no";
}

/** Formats a number with a unit, at a precision that suits its size. */
export function fmt(value: number | undefined, unit = ""): string {
  if (value === undefined || !Number.isFinite(value)) return "—";
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ""}`;
}

/** Formats a count as a whole number with thousands separators. */
export function count(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? "—" : Math.round(value).toLocaleString("en-US");
}

/**
 * Prints a benchmark's table as Markdown, so the README can take it as is.
 * @example
 * printTable("Parse path", [{ case: "1 KB events", ours: "1.2 M/s", anchor: "2.0 M/s", ratio: "1.67×", target: "≤ 3×", met: "yes" }]);
 */
export function printTable(title: string, rows: readonly Row[], notes: readonly string[] = []): void {
  const header = ["case", "ours", "anchor", "ratio", "target", "met?"];
  const cells = rows.map((row) => [row.case, row.ours, row.anchor, row.ratio, row.target, row.met]);
  const widths = header.map((name, column) => Math.max(name.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => `| ${values.map((value, column) => value.padEnd(widths[column]!)).join(" | ")} |`;
  const out = [`### ${title}`, "", line(header), line(widths.map((width) => "-".repeat(width)))];
  for (const values of cells) out.push(line(values));
  if (notes.length > 0) out.push("", ...notes.map((note) => `- ${note}`));
  console.log(`${out.join("\n")}\n`);
}

/** Prints a table with any columns as Markdown (the streaming tables have one per client). */
export function printGrid(
  title: string,
  header: readonly string[],
  rows: readonly string[][],
  notes: readonly string[] = [],
): void {
  const widths = header.map((name, column) =>
    Math.max(name.length, ...rows.map((line) => (line[column] ?? "").length)),
  );
  const line = (values: readonly string[]) =>
    `| ${header.map((_, column) => (values[column] ?? "").padEnd(widths[column]!)).join(" | ")} |`;
  const out = [`### ${title}`, "", line(header), line(widths.map((width) => "-".repeat(width)))];
  for (const values of rows) out.push(line(values));
  if (notes.length > 0) out.push("", ...notes.map((note) => `- ${note}`));
  console.log(`${out.join("\n")}\n`);
}

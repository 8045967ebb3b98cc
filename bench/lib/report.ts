import { fmt, load, median } from "./stats.ts";

/**
 * One row of the final table. `value` and `floor` are medians of the runs; `ratio` is the median
 * of the per-run ratios (each run's figure against the floor measured next to it), not the ratio
 * of the medians.
 */
export interface Figure {
  figure: string;
  value: string;
  floor: string;
  ratio: string;
  target: string;
  met: boolean | null;
}

export const figures: Figure[] = [];

export function addFigure(f: Figure): void {
  figures.push(f);
}

/** Prints each run and the median of a list of per-run numbers; returns the median. */
export function printRuns(label: string, runs: number[], unit: string, digits = 0): number {
  const m = median(runs);
  console.log(
    `  ${label}: ${runs.map((r) => fmt(r, digits)).join(", ")} ${unit} -> median ${fmt(m, digits)} ${unit}`,
  );
  return m;
}

/** Header of a part: what it measures and the load average at its start; returns the end printer. */
export function part(title: string, lines: string[] = []): () => void {
  console.log(`\n== ${title} ==`);
  for (const line of lines) console.log(`  ${line}`);
  console.log(`  load average at start: ${load()}`);
  return () => console.log(`  load average at end:   ${load()}`);
}

export function printTable(): void {
  const rows = [
    ["figure", "measured (median)", "floor (median)", "ratio (median)", "target", "met?"],
    ...figures.map((f) => [
      f.figure,
      f.value,
      f.floor,
      f.ratio,
      f.target,
      f.met === null ? "n/a" : f.met ? "yes" : "NO",
    ]),
  ];
  console.log(`\n| ${rows[0]!.join(" | ")} |`);
  console.log(`|${rows[0]!.map(() => "---").join("|")}|`);
  for (const row of rows.slice(1)) console.log(`| ${row.join(" | ")} |`);
  console.log(`\nload average at the end: ${load()}`);
}

/**
 * `npm run bench`: prints the machine, then runs each benchmark in its own process (so
 * heaps and RSS never mix), each killed if it outlives its limit (two minutes; five for
 * streaming-render, twenty-five for streaming-browser, ten for bundle-size and server). The tables also go to
 * `bench/results/latest.md`. Name benchmarks to run only those: `npm run bench -- streaming-browser`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

const all = ["streaming-render", "streaming-browser", "parse-path", "bundle-size", "server", "scale-out"];
/**
 * `npm run bench -- streaming-browser` runs only the benchmarks named; what follows the
 * first `--option` goes to each of them (`npm run bench -- streaming-browser --only rate --runs 2`).
 */
const firstOption = process.argv.findIndex((arg, index) => index >= 2 && arg.startsWith("--"));
const named = process.argv.slice(2, firstOption === -1 ? undefined : firstOption);
const passed = firstOption === -1 ? [] : process.argv.slice(firstOption);
const unknown = named.filter((name) => !all.includes(name));
if (unknown.length > 0) throw new Error(`Unknown benchmark ${unknown.join(", ")}: pick from ${all.join(", ")}.`);
const benchmarks = named.length > 0 ? named : all;
const limitMs = 120_000;
/** bundle-size builds, packs and installs the packages first (reused when npm test did). */
const limitsMs: Record<string, number> = {
  "streaming-render": 300_000,
  "streaming-browser": 1_500_000,
  "bundle-size": 600_000,
  server: 600_000,
  "scale-out": 600_000,
};
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The machine, as the README's Performance section states it. */
function machine(): string {
  const model =
    /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model ?? "unknown";
  const gib = (totalmem() / 2 ** 30).toFixed(1);
  return `${cpus().length} cores (nproc), ${gib} GiB memory, ${model.trim()}, Node ${process.version}`;
}

/** Runs one benchmark file; resolves with what it printed. */
function runOne(name: string): Promise<string> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...process.execArgv, here(`${name}.ts`), ...passed], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      out += text;
      process.stdout.write(text);
    });
    const limit = limitsMs[name] ?? limitMs;
    const timer = setTimeout(() => child.kill("SIGKILL"), limit);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const ending =
        signal === "SIGKILL"
          ? `killed after ${limit / 1000} s`
          : code === 0
            ? `took ${seconds} s`
            : `failed (exit ${code})`;
      const line = `_${name}: ${ending}_\n\n`;
      process.stdout.write(line);
      resolve(out + line);
    });
  });
}

const header = `Machine: ${machine()}\n\n`;
process.stdout.write(header);
const started = performance.now();
let report = header;
for (const name of benchmarks) report += await runOne(name);
const total = `_all: ${((performance.now() - started) / 1000).toFixed(0)} s_\n`;
process.stdout.write(total);
mkdirSync(here("results"), { recursive: true });
writeFileSync(here("results/latest.md"), report + total);

import { spawn } from "node:child_process";

/** How a child process ended: its last line of JSON, or why there is none. */
export type ChildResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Runs `node ...args` in its own process (so heaps and RSS never mix), kills it after
 * `timeoutMs`, and parses the last line it printed as JSON.
 */
export function runNodeJson<T>(args: readonly string[], timeoutMs: number): Promise<ChildResult<T>> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      out += text;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split("\n").at(-1) ?? "";
      if (signal === "SIGKILL") return resolve({ ok: false, reason: `timeout > ${Math.round(timeoutMs / 1000)} s` });
      try {
        resolve(code === 0 ? { ok: true, value: JSON.parse(line) as T } : { ok: false, reason: `exit ${code}` });
      } catch {
        resolve({ ok: false, reason: "no result" });
      }
    });
  });
}

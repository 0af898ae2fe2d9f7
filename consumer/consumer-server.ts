import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv } from "./prepare-consumer.js";

/** A README's server, compiled in the consumer app and running under plain `node`. */
export interface ConsumerServer {
  /** The protocol base it printed, such as `http://127.0.0.1:39211/api/agent`. */
  api: string;
  /** Stops it (SIGTERM) and waits for it to exit: how it exited. */
  stop(): Promise<Exit>;
  /** Kills it (SIGKILL), as when it did not stop. */
  kill(): void;
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Starts one of the consumer app's compiled servers (`dist/server.js` unless named) on a free
 * port, in a fresh working folder of its own: its SQLite file (`.data/hitl.sqlite`, relative
 * to it) is one process's, so servers started at once (two test workers) do not share one.
 * `env` adds to its environment (`DATABASE_URL`, say).
 */
export async function startConsumerServer(
  app: string,
  script = "dist/server.js",
  env: Record<string, string> = {},
): Promise<ConsumerServer> {
  const folder = mkdtempSync(join(tmpdir(), "hitl-kit-consumer-server-"));
  const child = spawn(process.execPath, [join(app, script)], {
    cwd: folder,
    env: { ...cleanEnv(), PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const api = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`The consumer server did not start:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve(url);
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`The consumer server exited (${code}):\n${output}`)));
  });
  return {
    api,
    async stop() {
      const exit = await stop(child);
      rmSync(folder, { recursive: true, force: true });
      return exit;
    },
    kill() {
      child.kill("SIGKILL");
    },
  };
}

function stop(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.kill("SIGTERM");
  });
}

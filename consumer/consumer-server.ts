import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv } from "./prepare-consumer.js";

/** The README's server, compiled in the consumer app and running under plain `node`. */
export interface ConsumerServer {
  /** The protocol base it printed, such as `http://127.0.0.1:39211/api/agent`. */
  api: string;
  /** Stops it and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `node dist/server.js` in the consumer app on a free port, with a fresh data folder. */
export async function startConsumerServer(app: string): Promise<ConsumerServer> {
  rmSync(join(app, ".data"), { recursive: true, force: true });
  const child = spawn(process.execPath, ["dist/server.js"], {
    cwd: app,
    env: { ...cleanEnv(), PORT: "0" },
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
  return { api, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundledEntry } from "../packages/server/test/bundled-entry.js";

const entry = fileURLToPath(new URL("../apps/chat/server/main.ts", import.meta.url));

/** A demo server process with its own data folder; it can be killed and started again on it. */
export interface DemoServer {
  url: string;
  /** SIGKILLs the process and starts a new one on the same port and data folder. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the built demo (`apps/chat/server/main.ts`, bundled with the packages' sources, as
 * `npm start` runs them through tsx) with the scripted model on a free port.
 */
export async function startDemoServer(env: Record<string, string> = {}): Promise<DemoServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "hitl-e2e-"));
  let child: ChildProcess;
  let url = "";
  const launch = async (port: string) => {
    child = spawn(process.execPath, [await bundledEntry(entry)], {
      env: { ...process.env, PORT: port, HOST: "127.0.0.1", HITL_DATA_DIR: dataDir, HITL_MODEL: "scripted", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk;
        const found = /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (found) resolve(found[1]!);
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", (chunk) => (output += chunk));
      child.once("exit", (code) => reject(new Error(`the demo server exited (${code}): ${output}`)));
    });
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  await launch("0");
  return {
    get url() {
      return url;
    },
    async restart() {
      await kill();
      await launch(new URL(url).port);
    },
    async stop() {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

import { spawn } from "node:child_process";
import { join } from "node:path";
import type { ScriptedModelOptions, ScriptedReply } from "@hitl-kit/server";
import { bundledEntry } from "../../server/test/bundled-entry.js";

export { tools } from "./live-tools.js";

/**
 * A real runtime on a loopback port, with the SQLite store on a temporary file, in its
 * own Node process (live-server-process.ts), called from the test page's origin. It logs
 * every protocol request and counts the event streams it serves while they are open.
 */
export async function startLiveServer(script: readonly ScriptedReply[], options: ScriptedModelOptions = {}) {
  const entry = await bundledEntry(join(import.meta.dirname, "live-server-process.ts"));
  const child = spawn(process.execPath, [entry, JSON.stringify(script), JSON.stringify(options), location.origin], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (chunk) => resolve(String(chunk).trim()));
    void exited.then(() => reject(new Error(`the live server exited: ${stderr}`)));
  });
  return {
    url: `${url}/api/agent`,
    /** Every protocol request so far (`METHOD path`), and the event streams served: opened, and open now. */
    async log(): Promise<{ requests: string[]; streams: { opened: number; open: number } }> {
      return (await fetch(`${url}/test/log`)).json();
    },
    /** A session of the test's caller, made on the server's side (no request in the log). */
    async createSession(): Promise<{ sessionId: string }> {
      return (await fetch(`${url}/test/sessions`, { method: "POST" })).json();
    },
    async close() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

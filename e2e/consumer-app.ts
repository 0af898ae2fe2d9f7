import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { type ConsumerServer, startConsumerServer } from "../consumer/consumer-server.js";
import { cleanEnv } from "../consumer/prepare-consumer.js";

/** The consumer app built from the READMEs: its server under `node`, its UI under `vite preview`. */
export interface ConsumerApp {
  url: string;
  stop(): Promise<void>;
}

/** Starts the app that the global setup prepared (`HITL_CONSUMER_APP`), on free loopback ports. */
export async function startConsumerApp(): Promise<ConsumerApp> {
  const app = process.env.HITL_CONSUMER_APP;
  if (!app) throw new Error("HITL_CONSUMER_APP is not set: the global setup prepares the consumer app.");
  const server: ConsumerServer = await startConsumerServer(app);
  const port = await freePort();
  const preview = spawn(
    process.execPath,
    [
      join(app, "node_modules/vite/bin/vite.js"),
      "preview",
      "--outDir",
      "web",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--strictPort",
    ],
    { cwd: app, env: { ...cleanEnv(), HITL_API_URL: new URL(server.api).origin }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForPreview(preview, url);
  return {
    url,
    async stop() {
      await stopChild(preview);
      await server.stop();
    },
  };
}

async function waitForPreview(child: ChildProcess, url: string): Promise<void> {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`vite preview exited:\n${output}`);
    if (
      await fetch(url).then(
        (response) => response.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`vite preview did not answer at ${url}:\n${output}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

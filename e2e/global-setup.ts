import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareConsumer, root } from "../consumer/prepare-consumer.js";

/**
 * Builds the demo app and Storybook once, before any browser test, and prepares the
 * consumer app (the packed packages installed outside the workspace; reused when
 * `npm test` already prepared the same tarballs). The two builds read the packages'
 * sources, not their `dist/`, so they run while the packages are built and packed.
 */
export default async function globalSetup(): Promise<void> {
  const logs = mkdtempSync(join(tmpdir(), "hitl-e2e-builds-"));
  const builds = Promise.all([
    build(["run", "build", "-w", "@hitl-kit/chat"], join(logs, "chat.log")),
    build(["run", "build-storybook"], join(logs, "storybook.log")),
  ]);
  builds.catch(() => {}); // awaited below, after the consumer
  process.env.HITL_CONSUMER_APP = prepareConsumer((line) => console.log(`consumer: ${line}`)).app;
  await builds;
  rmSync(logs, { recursive: true, force: true });
}

/**
 * Runs `npm <args>` in the background, its output to a file: a pipe would fill while
 * `prepareConsumer` holds the event loop, and stop the build. A failure says what it printed.
 */
function build(args: string[], log: string): Promise<void> {
  const output = openSync(log, "w");
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { cwd: root, stdio: ["ignore", output, output] });
    closeSync(output); // the child has its own
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`npm ${args.join(" ")} failed (${code}):\n${readFileSync(log, "utf8").slice(-8_000)}`));
    });
  });
}

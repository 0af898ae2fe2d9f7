import { execFileSync } from "node:child_process";
import { prepareConsumer, root } from "../consumer/prepare-consumer.js";

/**
 * Builds the demo app and Storybook once, before any browser test, and prepares the
 * consumer app (the packed packages installed outside the workspace; reused when
 * `npm test` already prepared the same tarballs).
 */
export default function globalSetup(): void {
  execFileSync("npm", ["run", "build", "-w", "@hitl-kit/chat"], { cwd: root, stdio: "inherit" });
  execFileSync("npm", ["run", "build-storybook"], { cwd: root, stdio: "inherit" });
  process.env.HITL_CONSUMER_APP = prepareConsumer((line) => console.log(`consumer: ${line}`)).app;
}

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Builds the demo app and Storybook once, before any browser test. */
export default function globalSetup(): void {
  execFileSync("npm", ["run", "build", "-w", "@hitl-kit/chat"], { cwd: root, stdio: "inherit" });
  execFileSync("npm", ["run", "build-storybook"], { cwd: root, stdio: "inherit" });
}

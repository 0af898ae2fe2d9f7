import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { storybookTest } from "@storybook/addon-vitest/vitest-plugin";
import { playwright } from "@vitest/browser-playwright";
import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { chromium } from "./chromium.js";

const isConsumer = (file: TestSpecification) => file.moduleId.endsWith("/consumer/consumer.test.ts");

/**
 * Starts the consumer test first. Its preparation (building, packing and installing the
 * packages) is the longest single job of a run: started first, it overlaps the other files
 * instead of ending the run after them. Vitest orders a fresh clone's files by size alone.
 */
class ConsumerFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter(isConsumer), ...sorted.filter((file) => !isConsumer(file))];
  }
}

/**
 * One config for the repo's tests. Workspace packages resolve to their `src` through
 * the `@hitl-kit/source` export condition, here as in tsconfig.json and the demo's dev server.
 */
export default defineConfig({
  resolve: { conditions: ["@hitl-kit/source", ...defaultClientConditions] },
  // Without Vite's `module`: Vitest passes these conditions to Node, and `module` builds are for
  // bundlers (OpenTelemetry's, which the server's telemetry test loads, fail in Node: their
  // imports lack file extensions). Node itself never uses `module`.
  ssr: {
    resolve: {
      conditions: ["@hitl-kit/source", ...defaultServerConditions.filter((condition) => condition !== "module")],
    },
  },
  test: {
    // Vitest's default is one worker fewer than the cores: on a two-core runner that runs every
    // file one after another, though most of them wait on sockets, timers and child processes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: ConsumerFirst },
    // .ci/run asks for a JSON report to print its closing line from.
    ...(process.env.HITL_TEST_REPORT
      ? { reporters: ["default", "json"], outputFile: { json: process.env.HITL_TEST_REPORT } }
      : {}),
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          // A worker runs its files in one module graph instead of importing the sources anew for
          // each file: a third less CPU for this project, half for dom's. The files keep no state
          // between them (servers, stores and stubbed globals are undone after each).
          isolate: false,
          // Many of these tests run real servers, PostgreSQL clusters and child processes, and
          // wait on them: seconds each on a loaded two-core runner, where Vitest's 5 s timed
          // three of them out. A hang still fails.
          testTimeout: 15_000,
          include: [
            "packages/*/src/**/*.test.ts",
            "packages/*/test/**/*.test.ts",
            "apps/*/**/*.test.ts",
            "storybook/scripts/**/*.test.ts",
            "consumer/readme-*.test.ts",
          ],
          exclude: ["**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "dom",
          environment: "happy-dom",
          isolate: false, // as for node, above
          // React tests talk to a real server on a loopback port: another origin.
          environmentOptions: { happyDOM: { settings: { fetch: { disableSameOriginPolicy: true } } } },
          // A turn against a real server with user-event typing takes 1–2 s alone and
          // several times that on a loaded two-core runner; a hang still fails.
          testTimeout: 15_000,
          setupFiles: ["./vitest.dom-setup.ts"],
          include: ["packages/*/src/**/*.test.tsx", "packages/*/test/**/*.test.tsx", "apps/*/src/**/*.test.tsx"],
          exclude: ["**/node_modules/**"],
        },
      },
      {
        // Every story's play function and axe check, in Chromium.
        extends: true,
        plugins: [storybookTest({ configDir: fileURLToPath(new URL("storybook/.storybook", import.meta.url)) })],
        // Pre-bundle every dependency the stories import, so a fresh clone never re-optimizes
        // (and reloads the page) in the middle of a run.
        optimizeDeps: {
          include: [
            "react",
            "react-dom",
            "react-dom/client",
            "react/jsx-runtime",
            "react/jsx-dev-runtime",
            "@tanstack/react-query",
            "zod",
            "zod/mini",
            "eventsource-parser/stream",
            "storybook/test",
            "@storybook/react-dom-shim",
            "axe-core",
          ],
        },
        test: {
          name: "storybook",
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: chromium }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
      {
        // The packages built, packed and installed into new projects outside the workspace.
        extends: true,
        test: {
          name: "consumer",
          environment: "node",
          include: ["consumer/consumer.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        // Type tests (`expectTypeOf`), for `npm run test:unit` and watch mode. `npm test` leaves
        // this project out: its `npm run typecheck` checks the same files with the same tsconfig.
        extends: true,
        test: {
          name: "types",
          include: [],
          typecheck: {
            enabled: true,
            only: true,
            include: [
              "packages/*/src/**/*.test-d.ts",
              "packages/*/src/**/*.test-d.tsx",
              "packages/*/test/**/*.test-d.ts",
              "packages/*/test/**/*.test-d.tsx",
              "apps/*/src/**/*.test-d.tsx",
            ],
            tsconfig: "./tsconfig.json",
          },
        },
      },
    ],
  },
});

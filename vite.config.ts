import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * One config for the repo's tests. Workspace packages resolve to their `src` through
 * the `@hitl-kit/source` export condition, here as in tsconfig.json and the demo's dev server.
 */
export default defineConfig({
  resolve: { conditions: ["@hitl-kit/source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["@hitl-kit/source", ...defaultServerConditions] } },
  test: {
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
          include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "apps/*/**/*.test.ts"],
          exclude: ["**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "dom",
          environment: "happy-dom",
          include: ["packages/*/src/**/*.test.tsx", "packages/*/test/**/*.test.tsx", "apps/*/src/**/*.test.tsx"],
          exclude: ["**/node_modules/**"],
        },
      },
      {
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
            ],
            tsconfig: "./tsconfig.json",
          },
        },
      },
    ],
  },
});

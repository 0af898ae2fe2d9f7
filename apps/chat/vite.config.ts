import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

/**
 * The demo app's build: two pages, the chat on `@hitl-kit/react` (`/`) and the same flow
 * through the AI SDK's `useChat` (`/use-chat/`). Workspace packages resolve to their
 * TypeScript sources through the `@hitl-kit/source` export condition, as in the root
 * tsconfig and Vitest config.
 */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  resolve: { conditions: ["@hitl-kit/source", ...defaultClientConditions] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    rollupOptions: {
      input: {
        main: `${import.meta.dirname}/index.html`,
        useChat: `${import.meta.dirname}/use-chat/index.html`,
      },
    },
  },
});

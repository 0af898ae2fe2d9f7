/**
 * The demo's server: the built app and the hitl-kit API on one port.
 * `npm start` builds the app first; see apps/chat/README.md for the environment variables.
 */
import { join } from "node:path";
import { serve } from "@hitl-kit/server";
import { createChatApp } from "./chat-app.js";
import { appDir, readChatConfig, storeLabel } from "./chat-config.js";
import { ConfigError } from "./model-from-env.js";

try {
  const config = readChatConfig(process.env);
  const app = createChatApp({ ...config, distDir: join(appDir, "dist") });
  // The store migrated and connected, and what a previous run left running picked up, before
  // serving: a database it cannot reach stops the demo here, with the reason.
  await app.runtime.ready.catch((error: unknown) => {
    const store = config.databaseUrl ? "the database of DATABASE_URL" : `the data folder ${config.dataDir}`;
    throw new ConfigError(`could not open ${store}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const served = await serve(app.handler, { port: config.port, host: config.host });
  console.log(`hitl-kit chat is running at ${served.url}/ (model: ${config.model.label}, data: ${storeLabel(config)})`);
  const stop = async () => {
    await served.close();
    await app.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  if (!(error instanceof ConfigError) && (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
  console.error(`hitl-kit chat cannot start: ${(error as Error).message}`);
  process.exit(1);
}

/**
 * `npm run dev`: Vite's dev server (hot reload) on PORT, with `/api` proxied to the demo's
 * server, which runs in this process on a free loopback port.
 */
import { serve } from "@hitl-kit/server";
import { createServer } from "vite";
import { createChatApp } from "./chat-app.js";
import { appDir, readChatConfig, storeLabel } from "./chat-config.js";
import { ConfigError } from "./model-from-env.js";

try {
  const config = readChatConfig(process.env);
  const app = createChatApp(config);
  const api = await serve(app.handler, { port: 0 });
  const vite = await createServer({
    root: appDir,
    server: { port: config.port, host: config.host, strictPort: true, proxy: { "/api": api.url } },
  });
  await vite.listen();
  console.log(
    `hitl-kit chat (dev) is running at ${vite.resolvedUrls?.local[0] ?? `http://${config.host}:${config.port}/`}`,
  );
  console.log(`  API on ${api.url}/api (model: ${config.model.label}, data: ${storeLabel(config)})`);
  const stop = async () => {
    await vite.close();
    await api.close();
    await app.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`hitl-kit chat cannot start: ${error.message}`);
  process.exit(1);
}

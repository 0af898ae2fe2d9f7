/**
 * The React tests' server, in a Node process of its own: the test files run in happy-dom,
 * whose `Request` and `Headers` replace Node's, and a server belongs on Node's.
 * argv: the script (JSON), the model options (JSON), the test page's origin.
 */
import { join } from "node:path";
import { createAgentRuntime, createFetchHandler, scriptedModel, serve, sqliteStore } from "@hitl-kit/server";
import { tempDir } from "../../server/test/harness.js";
import { tools } from "./live-tools.js";

const [script, modelOptions, pageOrigin] = process.argv.slice(2) as [string, string, string];
const dir = tempDir();
const store = sqliteStore(join(dir.path, "react.sqlite"));
const runtime = createAgentRuntime({
  model: scriptedModel(JSON.parse(script), JSON.parse(modelOptions)),
  tools: Object.values(tools),
  store,
});
// The test page (happy-dom's location) is on another origin than this server: a split deployment.
const served = await serve(createFetchHandler(runtime, { identify: () => "tester", allowedOrigins: [pageOrigin] }), {
  port: 0,
});
process.stdout.write(`${served.url}\n`);
process.once("SIGTERM", async () => {
  await served.close();
  await runtime.close();
  await store.close();
  dir.cleanup();
  process.exit(0);
});

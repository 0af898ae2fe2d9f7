/**
 * The React tests' server, in a Node process of its own: the test files run in happy-dom,
 * whose `Request` and `Headers` replace Node's, and a server belongs on Node's.
 * argv: the script (JSON), the model options (JSON), the test page's origin.
 * Besides the protocol it answers `GET /test/log` (every protocol request as `METHOD path`,
 * and the event streams served: opened, and open now) and `POST /test/sessions` (a
 * session of the test's caller, made on the server's side).
 */
import { join } from "node:path";
import { createAgentRuntime, createFetchHandler, implement, scriptedModel, serve } from "@hitl-kit/server";
import { sqliteStore } from "@hitl-kit/server/sqlite";
import { tempDir } from "../../server/test/harness.js";
import { tools } from "./live-tools.js";

const [script, modelOptions, pageOrigin] = process.argv.slice(2) as [string, string, string];
const dir = tempDir();
const store = sqliteStore(join(dir.path, "react.sqlite"));
const runtime = createAgentRuntime({
  model: scriptedModel(JSON.parse(script), JSON.parse(modelOptions)),
  tools: [
    tools.pickTemplate,
    tools.pickSize,
    // A little slow, so a test sees it running; an unknown sku fails.
    implement(tools.checkStock, async ({ sku }) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (sku !== "A2-calm") throw new Error(`No poster has the sku ${sku}.`);
      return { sku, count: 12 };
    }),
  ],
  store,
});
const owner = "tester";
// The test page (happy-dom's location) is on another origin than this server: a split deployment.
const handler = createFetchHandler(runtime, { identify: () => owner, allowedOrigins: [pageOrigin] });
const requests: string[] = [];
const streams = { opened: 0, open: 0 };

const served = await serve(
  async (request) => {
    const path = new URL(request.url).pathname;
    const json = (body: unknown) => Response.json(body, { headers: { "access-control-allow-origin": pageOrigin } });
    if (path === "/test/log") return json({ requests, streams });
    if (path === "/test/sessions") return json(await runtime.createSession({ owner }));
    if (request.method !== "OPTIONS") requests.push(`${request.method} ${path}`);
    const response = await handler(request);
    return path.endsWith("/events") && response.ok && response.body ? counted(response) : response;
  },
  { port: 0 },
);
process.stdout.write(`${served.url}\n`);
process.once("SIGTERM", async () => {
  await served.close();
  await runtime.close();
  await store.close();
  dir.cleanup();
  process.exit(0);
});

/** The response with its body counted in `streams` from first byte until it ends or is cancelled. */
function counted(response: Response): Response {
  const reader = response.body!.getReader();
  let open = true;
  const end = () => {
    if (open) streams.open--;
    open = false;
  };
  streams.opened++;
  streams.open++;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      end();
      controller.close();
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

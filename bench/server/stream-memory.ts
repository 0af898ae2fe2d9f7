import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serve } from "@hitl-kit/server";
import { collectGarbage, rssMiB } from "../timer.js";
import { inBatches, startRuntime } from "./fixture.js";

type ClientMessage = { type: "open" } | { type: "counts"; counts: Record<string, number> };

/**
 * RSS growth of the server with 1,000 open SSE streams (held by another process), and
 * whether every event reached every stream: each session then runs a turn that streams
 * a few dozen words and parks, and each stream's count is checked against the log.
 */
export async function measureStreamMemory(count = 1000) {
  const bench = startRuntime({ words: 40 });
  const served = await serve(bench.handler, { port: 0, host: "127.0.0.1" });
  const ids = await Promise.all(
    Array.from(
      { length: count },
      async () => ((await bench.call("POST", "/sessions", {})) as { sessionId: string }).sessionId,
    ),
  );
  collectGarbage();
  const before = rssMiB();
  const client = spawn(
    process.execPath,
    [
      ...process.execArgv,
      fileURLToPath(new URL("stream-clients.ts", import.meta.url)),
      `${served.url}/api/agent`,
      ids.join(","),
    ],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const next = () => new Promise<ClientMessage>((resolve) => client.once("message", resolve as (m: unknown) => void));
  const opened = await Promise.race([next(), new Promise<undefined>((r) => setTimeout(r, 30_000))]);
  if (!opened) throw new Error("the stream clients did not open their streams within 30 s");
  collectGarbage();
  const open = rssMiB();
  let peak = open;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 20);
  // Every session runs a turn: 100 turns at a time, so the streams carry a steady load.
  for (let start = 0; start < ids.length; start += 100) {
    await inBatches(ids.slice(start, start + 100), 100, (id) =>
      bench.call("POST", `/sessions/${id}/messages`, { text: "make me a poster" }),
    );
    await bench.runtime.idle();
  }
  await new Promise((resolve) => setTimeout(resolve, 300)); // let the last bytes cross the socket
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB());
  const reply = next();
  client.send({ type: "report" });
  const { counts } = (await reply) as Extract<ClientMessage, { type: "counts" }>;
  let expected = 0;
  let dropped = 0;
  for (const id of ids) {
    const events = (await bench.runtime.readEvents(id, 0)).length;
    expected += events;
    dropped += Math.max(0, events - (counts[id] ?? 0));
  }
  await served.close();
  await bench.close();
  return { before, open, openGrowth: open - before, peak, growth: peak - before, expected, dropped };
}

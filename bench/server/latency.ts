import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hitl-kit/server";
import { createParser } from "eventsource-parser";
import { now, percentile } from "../timer.js";
import { inBatches, startRuntime } from "./fixture.js";

const sessions = 100;
const roundTrips = 300;
const throughputRounds = 5;

/** One session's open SSE stream: calls `onEvent` with each parsed event. */
async function follow(url: string, onEvent: (event: { type: string; [key: string]: unknown }) => void) {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream" }, signal: abort.signal });
  const parser = createParser({ onEvent: (message) => onEvent({ type: message.event, ...JSON.parse(message.data) }) });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted at the end
    }
  })();
  return () => abort.abort();
}

/** Respond → `tool.result` latency and settled responses per second, with 100 parked sessions, over HTTP on loopback. */
export async function measureLatency() {
  const bench = startRuntime();
  const served = await serve(bench.handler, { port: 0, host: "127.0.0.1" });
  const base = `${served.url}/api/agent`;
  const ids = await Promise.all(Array.from({ length: sessions }, () => bench.park()));
  await bench.runtime.idle();
  // Each session's open request, and who waits for which tool call's result.
  const open = new Map<string, { requestId: string; toolCallId: string }>();
  const waiting = new Map<string, () => void>();
  const parked = new Map<string, () => void>();
  const stops = await Promise.all(
    ids.map((id) =>
      follow(`${base}/sessions/${id}/events`, (event) => {
        if (event.type === "input.requested") {
          const [request] = event.requests as { requestId: string; toolCallId: string }[];
          open.set(id, request!);
          parked.get(id)?.();
        }
        if (event.type === "tool.result") waiting.get(event.toolCallId as string)?.();
      }),
    ),
  );
  const whenParked = (id: string) => (open.has(id) ? Promise.resolve() : new Promise<void>((r) => parked.set(id, r)));
  await Promise.all(ids.map(whenParked));
  const respond = async (id: string, timed: boolean) => {
    await whenParked(id);
    const request = open.get(id)!;
    open.delete(id);
    const result = new Promise<void>((resolve) => waiting.set(request.toolCallId, resolve));
    const start = now();
    const post = fetch(`${base}/sessions/${id}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        responses: [{ requestId: request.requestId, action: "accept", value: { templateId: "calm" } }],
      }),
    }).then((response) => response.arrayBuffer());
    await (timed ? result : post);
    const elapsed = now() - start;
    await Promise.all([post, result]);
    return elapsed;
  };
  const latencies: number[] = [];
  for (let i = 0; i < roundTrips; i++) latencies.push(await respond(ids[i % sessions]!, true));
  let settledMs = 0;
  for (let round = 0; round < throughputRounds; round++) {
    await Promise.all(ids.map(whenParked));
    const start = now();
    await Promise.all(ids.map((id) => respond(id, false)));
    settledMs += now() - start;
  }
  for (const stop of stops) stop();
  await served.close();
  await bench.close();
  return {
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    settledPerSecond: (sessions * throughputRounds) / (settledMs / 1000),
  };
}

/** The floor: a bare Node HTTP server on loopback answering a small POST, timed the same ways. */
export async function measureFloor() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const post = () =>
    fetch(url, { method: "POST", body: '{"responses":[]}' }).then((response) => response.arrayBuffer());
  const latencies: number[] = [];
  for (let i = 0; i < roundTrips; i++) {
    const start = now();
    await post();
    latencies.push(now() - start);
  }
  const start = now();
  for (let round = 0; round < throughputRounds; round++)
    await inBatches(Array.from({ length: sessions }), sessions, post);
  const perSecond = (sessions * throughputRounds) / ((now() - start) / 1000);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), settledPerSecond: perSecond };
}

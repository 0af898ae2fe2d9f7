/**
 * Parse path: SSE bytes → validated events per second. hitl-kit's client decoder (the
 * public `sseTransport`, reading a fake fetch), beside eventsource-parser + JSON.parse
 * alone (the floor) and the AI SDK's `parseJsonEventStream` with its UI message chunk schema.
 */
import { sseTransport } from "@hitl-kit/client";
import { type EventInput, eventFrameEncoder, type ProtocolEvent } from "@hitl-kit/protocol";
import { parseJsonEventStream, uiMessageChunkSchema } from "ai";
import { createParser } from "eventsource-parser";
import { fmt, printTable, type Row, ratio, verdict } from "./table.js";
import { median, now } from "./timer.js";

const count = 20_000;
const chunkBytes = 16 * 1024;
const encoder = new TextEncoder();
const input = {
  templates: Array.from({ length: 12 }, (_, i) => ({ id: `tpl_${i}`, title: `Template ${i}`, tags: ["a", "b"] })),
};

/** The same events in both wire formats: hitl-kit's protocol v1 and the AI SDK's UI message stream. */
const cases = {
  "text deltas (one word each)": {
    ours: (_i: number): EventInput => ({ type: "text.delta", messageId: "msg_1", delta: "word " }),
    theirs: (_i: number) => ({ type: "text-delta", id: "t0", delta: "word " }),
  },
  "tool calls (≈ 1 KB input each)": {
    ours: (i: number): EventInput => ({
      type: "tool.called",
      messageId: "msg_1",
      toolCallId: `call_${i}`,
      toolName: "pick_template",
      input,
    }),
    theirs: (i: number) => ({
      type: "tool-input-available",
      toolCallId: `call_${i}`,
      toolName: "pick_template",
      input,
    }),
  },
};

/** Joins SSE frames and cuts the bytes into network-sized chunks. */
function chunksOf(frames: string[]): Uint8Array[] {
  const bytes = encoder.encode(frames.join(""));
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkBytes)
    chunks.push(bytes.subarray(offset, offset + chunkBytes));
  return chunks;
}
const streamOf = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });

/** hitl-kit: the client's own SSE transport reads the bytes and hands validated events to a sink. */
function ours(chunks: Uint8Array[]): Promise<number> {
  const transport = sseTransport({
    url: "http://bench.local/api/agent",
    fetch: async () => new Response(streamOf(chunks)),
  });
  return new Promise((resolve, reject) => {
    let received = 0;
    const close = transport.openStream("ses_bench", {
      lastSeq: () => 0,
      sink: {
        event: () => void received++,
        events: (events) => {
          received += events.length;
          if (received < count) return;
          close();
          resolve(received);
        },
        connection: () => {},
        fail: (error) => reject(new Error(error.message)),
      },
    });
  });
}

/** The floor: eventsource-parser and JSON.parse, no validation. */
async function floor(chunks: Uint8Array[]): Promise<number> {
  let received = 0;
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent: (message) => void (JSON.parse(message.data) && received++) });
  const reader = streamOf(chunks).getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read())
    parser.feed(decoder.decode(next.value, { stream: true }));
  return received;
}

/** The AI SDK: `parseJsonEventStream` validating each chunk with `uiMessageChunkSchema`, as `useChat` does. */
async function aiSdk(chunks: Uint8Array[]): Promise<number> {
  let received = 0;
  const reader = parseJsonEventStream({ stream: streamOf(chunks), schema: uiMessageChunkSchema }).getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) if (next.value.success) received++;
  return received;
}

/** Median seconds per run over interleaved runs, within `budgetMs` per decoder. */
async function race(
  decoders: Record<string, () => Promise<number>>,
  budgetMs: number,
): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(decoders).map((name) => [name, []]));
  const end = now() + budgetMs * Object.keys(decoders).length;
  for (let round = 0; round < 40 && (round < 5 || now() < end); round++) {
    for (const [name, decode] of Object.entries(decoders)) {
      const start = now();
      const received = await decode();
      if (received !== count) throw new Error(`${name} decoded ${received} of ${count} events`);
      if (round > 0) samples[name]!.push((now() - start) / 1000);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, times]) => [name, median(times)]));
}

const rows: Row[] = [];
const rate = (seconds: number | undefined) => (seconds === undefined ? undefined : count / seconds / 1000);
for (const [name, make] of Object.entries(cases)) {
  const at = new Date().toISOString();
  const encode = eventFrameEncoder();
  const oursChunks = chunksOf(
    Array.from({ length: count }, (_, i) =>
      encode({ ...make.ours(i), seq: i + 1, sessionId: "ses_bench", at } as ProtocolEvent),
    ),
  );
  const theirChunks = chunksOf(Array.from({ length: count }, (_, i) => `data: ${JSON.stringify(make.theirs(i))}\n\n`));
  const times = await race(
    { ours: () => ours(oursChunks), floor: () => floor(oursChunks), aiSdk: () => aiSdk(theirChunks) },
    2500,
  );
  const slowdown = times.ours! / times.floor!;
  rows.push({
    case: `${name}: vs eventsource-parser + JSON.parse`,
    ours: fmt(rate(times.ours), "k ev/s"),
    anchor: fmt(rate(times.floor), "k ev/s"),
    ratio: ratio(times.ours, times.floor),
    target: "≤ 3× the floor's time",
    met: verdict(slowdown <= 3),
  });
  rows.push({
    case: `${name}: vs AI SDK parseJsonEventStream`,
    ours: fmt(rate(times.ours), "k ev/s"),
    anchor: fmt(rate(times.aiSdk), "k ev/s"),
    ratio: ratio(times.ours, times.aiSdk),
    target: "—",
    met: "—",
  });
}

printTable("Parse path", rows, [
  `${count.toLocaleString("en-US")} events per run, in ${chunkBytes / 1024} KiB chunks; median of interleaved runs after a warm-up`,
  "ratio = ours' time ÷ the anchor's time (lower is better)",
]);

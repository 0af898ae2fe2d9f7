/**
 * Records the event streams the transcript stories replay, from the real runtime with a
 * scripted model and the demo's tools: `npm run record-fixtures` writes one JSON file per
 * HITL state into storybook/fixtures/ (or the folder given as its argument). It drives each
 * session through `@hitl-kit/client`'s ApiClient, as a browser would. Nothing in them is
 * written by hand.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type ApiClient, createApiClient } from "@hitl-kit/client";
import type { InputResponse, ProtocolEvent } from "@hitl-kit/protocol";
import {
  type AgentRuntime,
  createAgentRuntime,
  createFetchHandler,
  memoryStore,
  type ScriptedReply,
  scriptedModel,
} from "@hitl-kit/server";
import { demoTools } from "../../apps/chat/server/demo-tools.js";

const templates = [
  { id: "bold", name: "Bold", description: "Big type, high contrast", preview: "/templates/bold.svg" },
  { id: "calm", name: "Calm", description: "Soft pastels", preview: "/templates/calm.svg" },
  { id: "retro", name: "Retro", description: "Warm 70s tones", preview: "/templates/retro.svg" },
];
const askTemplate = { toolName: "pick_template", input: { templates } };
const askRatio = { toolName: "pick_aspect_ratio", input: { ratios: ["1:1", "4:5", "16:9"] } };
const askDetails = { toolName: "collect_details", input: { reason: "I need a few details to book the venue." } };
const askRefund = { toolName: "refund_charge", input: { chargeId: "ch_3PqL9x2e", amount: 1250 } };

/** One recording: a script, the person's message, and what happens after the first park. */
interface Scenario {
  script: ScriptedReply[];
  message: string;
  expireAfter?: number;
  after?: (
    answer: (responses: (pending: { requestId: string }[]) => InputResponse[]) => Promise<void>,
  ) => Promise<void>;
}

const scenarios: Record<string, Scenario> = {
  streaming: {
    message: "Tell me about poster sizes.",
    script: [
      {
        reasoning: "They want an overview of the common sizes.",
        text: "Posters come in a few common shapes. Square (1:1) works well on social feeds, portrait (4:5) fills a phone screen, and wide (16:9) suits screens and banners. Tell me where it will hang and I will suggest one.",
      },
    ],
  },
  "parked-picker": {
    message: "Make me a poster for the spring fair.",
    script: [{ text: "Let's start with a template.", toolCalls: [askTemplate] }],
  },
  "approval-pending": {
    message: "Refund 1250 on ch_3PqL9x2e.",
    script: [{ text: "That amount needs your approval.", toolCalls: [askRefund] }],
  },
  "several-parked": {
    message: "Set up the fair poster and the booking.",
    script: [{ text: "Three things to settle.", toolCalls: [askTemplate, askRatio, askDetails] }],
  },
  "partly-answered": {
    message: "Set up the fair poster and the booking.",
    script: [{ text: "Three things to settle.", toolCalls: [askTemplate, askRatio, askDetails] }],
    after: (answer) =>
      answer((pending) => [{ requestId: pending[1]!.requestId, action: "accept", value: { ratio: "4:5" } }]),
  },
  "answered-resumed": {
    message: "Make me a poster for the spring fair.",
    script: [
      { text: "Let's start with a template.", toolCalls: [askTemplate] },
      { text: "Calm it is: soft pastels suit a spring fair. Next I would pick the shape." },
    ],
    after: (answer) =>
      answer((pending) => [{ requestId: pending[0]!.requestId, action: "accept", value: { templateId: "calm" } }]),
  },
  declined: {
    message: "Refund 1250 on ch_3PqL9x2e.",
    script: [
      { text: "That amount needs your approval.", toolCalls: [askRefund] },
      { text: "Understood, I did not refund it. Want me to refund part of it instead?" },
    ],
    after: (answer) =>
      answer((pending) => [
        { requestId: pending[0]!.requestId, action: "decline", reason: "Check with finance first." },
      ]),
  },
  expired: {
    message: "Make me a poster for the spring fair.",
    expireAfter: 20,
    script: [
      { text: "Let's start with a template.", toolCalls: [askTemplate] },
      { text: "The template question timed out. Say “poster” when you want to pick up again." },
    ],
  },
};

/** The events of `sessionId` up to `lastSeq`, read from its event stream. */
async function readStream(api: ApiClient, sessionId: string, lastSeq: number): Promise<ProtocolEvent[]> {
  const events: ProtocolEvent[] = [];
  if (lastSeq === 0) return events;
  for await (const event of api.events(sessionId)) {
    events.push(event);
    if (event.seq >= lastSeq) break;
  }
  return events;
}

async function record(scenario: Scenario): Promise<ProtocolEvent[]> {
  const runtime: AgentRuntime = createAgentRuntime({
    // Chunks further apart than the store's write batches (8 ms), so each is its own delta, as a provider streams them.
    model: scriptedModel(scenario.script, { wordsPerChunk: 3, chunkDelayMs: 12 }),
    tools: demoTools,
    store: memoryStore(),
    ...(scenario.expireAfter ? { expireAfter: scenario.expireAfter } : {}),
  });
  // The recorder is a client like any other: it drives the session over the wire protocol,
  // through the fetch handler in process, and records what the event stream delivers.
  const handler = createFetchHandler(runtime, { identify: () => "recorder" });
  const api = createApiClient({
    url: "http://recorder.local/api/agent",
    fetch: (url, init) => handler(new Request(url, init)),
  });
  const { sessionId } = await api.createSession();
  await api.sendMessage(sessionId, scenario.message);
  await runtime.idle();
  await scenario.after?.(async (responses) => {
    await api.respond(sessionId, responses((await api.getSnapshot(sessionId)).pending));
    await runtime.idle();
  });
  if (scenario.expireAfter) {
    await new Promise((resolve) => setTimeout(resolve, scenario.expireAfter! * 5));
    await api.getSnapshot(sessionId); // a read settles what expired
    await runtime.idle();
  }
  const events = await readStream(api, sessionId, (await api.getSnapshot(sessionId)).lastSeq);
  await runtime.close();
  return events;
}

/** Records every scenario: the event log of each, by fixture name. */
export async function recordFixtures(): Promise<Record<string, ProtocolEvent[]>> {
  const recorded: Record<string, ProtocolEvent[]> = {};
  for (const [name, scenario] of Object.entries(scenarios)) recorded[name] = await record(scenario);
  return recorded;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const folder = process.argv[2] ?? join(import.meta.dirname, "../fixtures");
  mkdirSync(folder, { recursive: true });
  for (const [name, events] of Object.entries(await recordFixtures())) {
    writeFileSync(join(folder, `${name}.json`), `${JSON.stringify(events, null, 1)}\n`);
    console.log(`${name}: ${events.length} events`);
  }
}

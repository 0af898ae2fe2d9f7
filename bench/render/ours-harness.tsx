import "./dom-env.js";
import { type EventInput, eventFrameEncoder, type ProtocolEvent, type SessionSnapshot } from "@hitl-kit/protocol";
import { type AgentView, useAgent } from "@hitl-kit/react";
import { createRoot } from "react-dom/client";
import { deltaAt, frameStream, RenderProbe } from "./render-probe.js";

const count = Number(process.argv[2] ?? 1000);
const sessionId = "ses_bench";
const probe = new RenderProbe(count);
let sent: () => void = () => {};
const turnStarted = new Promise<void>((resolve) => (sent = resolve));

function framesOf(inputs: EventInput[]): string[] {
  const at = new Date().toISOString();
  const encode = eventFrameEncoder();
  return inputs.map((input, index) => encode({ ...input, seq: index + 2, sessionId, at } as ProtocolEvent));
}
const inputs: EventInput[] = [
  { type: "turn.started", turnId: "turn_1", cause: "message" },
  { type: "message.started", messageId: "msg_user", role: "user" },
  { type: "text.delta", messageId: "msg_user", delta: "go" },
  { type: "message.completed", messageId: "msg_user" },
  { type: "message.started", messageId: "msg_bot", role: "assistant" },
];
const firstDelta = inputs.length;
for (let i = 0; i < count; i++) inputs.push({ type: "text.delta", messageId: "msg_bot", delta: deltaAt(i) });
inputs.push({ type: "message.completed", messageId: "msg_bot" }, { type: "turn.completed", turnId: "turn_1" });
const frames = framesOf(inputs);
const snapshot: SessionSnapshot = { sessionId, status: "idle", messages: [], pending: [], resolved: [], lastSeq: 1 };

/** The hitl-kit server, faked at the fetch boundary: snapshot, event stream and messages routes. */
async function fakeFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const path = new URL(String(input)).pathname;
  if (path.endsWith("/events")) {
    await turnStarted;
    const body = frameStream(frames, (index) => index >= firstDelta && probe.delivered(index - firstDelta), true);
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }
  if (path.endsWith("/messages") && init?.method === "POST") {
    sent();
    return Response.json({ turnId: "turn_1" }, { status: 202 });
  }
  return Response.json(snapshot);
}

let agent: AgentView | undefined;
function Chat() {
  const view = useAgent({ url: "http://bench.local/api/agent", sessionId, fetch: fakeFetch });
  agent = view;
  probe.renders++;
  return (
    <div id="out">
      {view.messages.map((message) =>
        message.role === "assistant"
          ? message.parts.map((part, index) => (part.type === "text" ? <p key={index}>{part.text}</p> : null))
          : null,
      )}
    </div>
  );
}

const container = document.createElement("div");
document.body.appendChild(container);
createRoot(container).render(<Chat />);
await new Promise((resolve) => setTimeout(resolve, 20));
await agent!.client.ready;
(globalThis as { gc?: () => void }).gc?.();
probe.renders = 0;
const done = probe.watch(document.getElementById("out")!);
probe.start();
void agent!.send("go");
console.log(JSON.stringify(await done));
process.exit(0);

import "./dom-env.js";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { createRoot } from "react-dom/client";
import { deltaAt, frameStream, RenderProbe } from "./render-probe.js";

const count = Number(process.argv[2] ?? 1000);
const throttle = process.argv[3] ? Number(process.argv[3]) : undefined;
const probe = new RenderProbe(count);

// The AI SDK's UI message stream, as `toUIMessageStreamResponse()` writes it for one text part.
const chunks: unknown[] = [
  { type: "start", messageId: "msg_bot" },
  { type: "start-step" },
  { type: "text-start", id: "t0" },
];
const firstDelta = chunks.length;
for (let i = 0; i < count; i++) chunks.push({ type: "text-delta", id: "t0", delta: deltaAt(i) });
chunks.push({ type: "text-end", id: "t0" }, { type: "finish-step" }, { type: "finish" });
const frames = [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"];

/** The chat route, faked at the fetch boundary. */
async function fakeFetch(): Promise<Response> {
  const body = frameStream(frames, (index) => index >= firstDelta && probe.delivered(index - firstDelta));
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" },
  });
}
const transport = new DefaultChatTransport({ api: "http://bench.local/api/chat", fetch: fakeFetch });

let send: ((text: string) => void) | undefined;
function Chat() {
  const chat = useChat({ transport, ...(throttle === undefined ? {} : { throttle }) });
  send = (text) => void chat.sendMessage({ text });
  probe.renders++;
  return (
    <div id="out">
      {chat.messages.map((message) =>
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
(globalThis as { gc?: () => void }).gc?.();
probe.renders = 0;
const done = probe.watch(document.getElementById("out")!);
probe.start();
send!("go");
console.log(JSON.stringify(await done));
process.exit(0);

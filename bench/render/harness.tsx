/**
 * One streaming run, in a page (Chromium) or in happy-dom: mounts a chat for one variant,
 * sends, and watches the DOM until the reply's text is whole. The same code for both
 * clients; each renders the way its docs show — hitl-kit's `useAgent` with `<MessageText>`,
 * the AI SDK's `useChat` with the text part in one element — with memoized rows.
 */
import { useChat } from "@ai-sdk/react";
import type { Message } from "@hitl-kit/protocol";
import { MessageText, splitTextBlocks, useAgent } from "@hitl-kit/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { memo, useEffect, useRef, useState } from "react";
import { createRoot, type Root } from "react-dom/client";
import { commits } from "./commit-hook.js";
import {
  FRAME_MS,
  floor,
  historyRole,
  historyText,
  REPLY_ID,
  replyText,
  type StreamShape,
  shapeOf,
  type Variant,
} from "./stream-case.js";

/** What a run is: the client, the run's id (which carries its shape) and where the wire server is. */
export interface RunSpec {
  variant: Variant;
  runId: string;
  /** The wire server's origin (`""`: the page's own). */
  base: string;
  /** The `fetch` the clients use (happy-dom's runs pass the in-process server). */
  fetch?: typeof globalThis.fetch;
}

/** What one run measured, in the page. */
export interface RunResult {
  /** From `send` to the reply's whole text in the DOM. */
  ms: number;
  /** React commits during the run (as React DevTools counts them). */
  commits: number;
  /** The most commits between two animation frames while the reply streams (from its first text on). */
  maxCommitsPerFrame: number;
  /** Animation frames that ran, and those missed (a gap of more than a frame counts its missing frames). */
  frames: number;
  missedFrames: number;
  /** Durations of long tasks (> 50 ms) in the run; `undefined` where the engine has no longtask entries. */
  longTasks: number[] | undefined;
  /** Whether the reply's text in the DOM was exactly the text streamed. */
  textOk: boolean;
}

interface Live {
  root: Root;
  container: HTMLElement;
  send: () => void;
  ready: Promise<void>;
  shape: StreamShape;
}
let live: Live | undefined;

const HitlRow = memo(function HitlRow({ message }: { message: Message }) {
  return (
    <article data-id={message.id} data-role={message.role}>
      {message.parts.map((part, index) =>
        part.type === "text" ? <MessageText key={index} className="text" text={part.text} /> : null,
      )}
    </article>
  );
});

/** What every variant's chat gets: the run, where to hand its send, and what to call once it can send. */
interface ChatProps {
  spec: RunSpec;
  onSend: (send: () => void) => void;
  onReady: () => void;
}

function HitlChat({ spec, onSend, onReady }: ChatProps) {
  const agent = useAgent({
    url: `${spec.base}/api/agent`,
    sessionId: spec.runId,
    ...(spec.fetch ? { fetch: spec.fetch } : {}),
  });
  onSend(() => void agent.send("go"));
  useEffect(() => {
    if (agent.hydrated && agent.connection === "open") onReady();
  }, [agent.hydrated, agent.connection, onReady]);
  return (
    <div className="chat">
      {agent.messages.map((message) => (
        <HitlRow key={message.id} message={message} />
      ))}
    </div>
  );
}

const ChatRow = memo(function ChatRow({ message }: { message: UIMessage }) {
  return (
    <article data-id={message.id} data-role={message.role}>
      {message.parts.map((part, index) =>
        part.type === "text" ? (
          <div key={index} className="text">
            {part.text}
          </div>
        ) : null,
      )}
    </article>
  );
});

function AiSdkChat({ spec, history, onSend, onReady }: ChatProps & { history: UIMessage[] }) {
  const [transport] = useState(
    () =>
      new DefaultChatTransport({
        api: `${spec.base}/api/chat/${spec.runId}`,
        ...(spec.fetch ? { fetch: spec.fetch } : {}),
      }),
  );
  const throttle = spec.variant === "useChat throttle 16" ? { experimental_throttle: 16 } : {};
  const chat = useChat({
    id: spec.runId,
    messages: history,
    transport,
    ...throttle,
  });
  onSend(() => void chat.sendMessage({ text: "go" }));
  useEffect(onReady, []);
  return (
    <div className="chat">
      {chat.messages.map((message) => (
        <ChatRow key={message.id} message={message} />
      ))}
    </div>
  );
}

/**
 * Reads the AI SDK's bytes of the run with no client: parses each event and, once per
 * frame, shows the text in `element` as `<MessageText>` lays it out (its `splitTextBlocks`,
 * without React) — finished blocks added once, the tail's one text node set — so the DOM
 * work does not grow with the reply.
 */
async function streamWithoutClient(spec: RunSpec, element: HTMLElement): Promise<void> {
  const tail = element.appendChild(document.createElement("div"));
  const tailText = tail.appendChild(document.createTextNode(""));
  let blocks = splitTextBlocks("");
  let text = "";
  let waiting = false;
  const show = () => {
    waiting = false;
    const next = splitTextBlocks(text, blocks);
    for (const finished of next.finished.slice(blocks.finished.length)) {
      const block = document.createElement("div");
      block.textContent = finished;
      tail.before(block);
    }
    tailText.nodeValue = text.slice(next.tailStart);
    blocks = next;
  };
  const response = await (spec.fetch ?? fetch)(`${spec.base}/api/chat/${spec.runId}`, { method: "POST" });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!line.startsWith("data: {")) continue;
      const chunk = JSON.parse(line.slice(6)) as { type: string; delta?: string };
      if (chunk.type === "text-delta") text += chunk.delta;
    }
    if (!waiting) {
      waiting = true;
      requestAnimationFrame(show);
    }
  }
}

/** The floor: the reply's element, filled by {@link streamWithoutClient} outside React. */
function NoClient({ spec, onSend, onReady }: ChatProps) {
  const text = useRef<HTMLDivElement>(null);
  onSend(() => void streamWithoutClient(spec, text.current!));
  useEffect(onReady, []);
  return (
    <div className="chat">
      <article data-id={REPLY_ID} data-role="assistant">
        <div ref={text} className="text" />
      </article>
    </div>
  );
}

/** Mounts the chat of a run and resolves once it is ready to send (hydrated and, for hitl-kit, its stream open). */
export function prepare(spec: RunSpec): Promise<void> {
  if (live) throw new Error("prepare() was called twice: call teardown() after each run.");
  const shape = shapeOf(spec.runId);
  const container = document.createElement("div");
  document.body.appendChild(container);
  const root = createRoot(container);
  let send: (() => void) | undefined;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const onSend = (given: () => void) => {
    send = given;
  };
  const history: UIMessage[] = Array.from({ length: shape.history }, (_, index) => ({
    id: `msg_h${index}`,
    role: historyRole(index),
    parts: [{ type: "text", text: historyText(index) }],
  }));
  root.render(
    spec.variant === "hitl-kit" ? (
      <HitlChat spec={spec} onSend={onSend} onReady={markReady} />
    ) : spec.variant === floor ? (
      <NoClient spec={spec} onSend={onSend} onReady={markReady} />
    ) : (
      <AiSdkChat spec={spec} history={history} onSend={onSend} onReady={markReady} />
    ),
  );
  live = { root, container, send: () => send?.(), ready, shape };
  return ready;
}

/** The length of an element's text, summed over its text nodes (no copy of the text). */
function textLength(element: Element): number {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let length = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) length += (node as Text).length;
  return length;
}

/** Sends, and resolves when the reply's whole text is in the DOM. */
export async function go(): Promise<RunResult> {
  if (!live) throw new Error("go() needs prepare() first.");
  const { container, shape } = live;
  const expected = replyText(shape.deltas);
  const frames: number[] = [];
  let watching = true;
  const frame = (time: number) => {
    frames.push(time);
    if (watching) requestAnimationFrame(frame);
  };
  const longTasks: number[] = [];
  const supportsLongTasks =
    typeof PerformanceObserver !== "undefined" && PerformanceObserver.supportedEntryTypes?.includes("longtask");
  const longTaskObserver = supportsLongTasks
    ? new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longTasks.push(entry.duration);
      })
    : undefined;
  longTaskObserver?.observe({ type: "longtask" });
  await new Promise((resolve) => requestAnimationFrame(resolve));
  requestAnimationFrame(frame);
  const firstCommit = commits.length;
  const started = performance.now();
  let streamingFrom = Number.POSITIVE_INFINITY;
  const result = await new Promise<{ ms: number; text: string }>((resolve) => {
    const check = () => {
      const reply = container.querySelector(`[data-id="${REPLY_ID}"]`);
      if (!reply) return;
      const length = textLength(reply);
      if (length > 0 && streamingFrom === Number.POSITIVE_INFINITY) streamingFrom = performance.now();
      if (length < expected.length) return;
      const ms = performance.now() - started;
      observer.disconnect();
      resolve({ ms, text: reply.textContent ?? "" });
    };
    const observer = new MutationObserver(check);
    observer.observe(container, { subtree: true, childList: true, characterData: true });
    live!.send();
  });
  // One more frame, so the last commit's frame is counted, and the long task that held it reported.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  watching = false;
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (longTaskObserver) {
    for (const entry of longTaskObserver.takeRecords()) longTasks.push(entry.duration);
    longTaskObserver.disconnect();
  }
  const during = commits.slice(firstCommit).filter((commit) => commit.time >= started);
  const perFrame = new Map<number, number>();
  for (const commit of during) {
    if (commit.time >= streamingFrom) perFrame.set(commit.frame, (perFrame.get(commit.frame) ?? 0) + 1);
  }
  const maxCommitsPerFrame = Math.max(0, ...perFrame.values());
  let missedFrames = 0;
  for (let index = 1; index < frames.length; index++) {
    missedFrames += Math.max(0, Math.round((frames[index]! - frames[index - 1]!) / FRAME_MS) - 1);
  }
  return {
    ms: result.ms,
    commits: during.length,
    maxCommitsPerFrame,
    frames: frames.length,
    missedFrames,
    longTasks: supportsLongTasks ? longTasks : undefined,
    textOk: result.text === expected,
  };
}

/** Unmounts the run's chat (which closes its stream). */
export function teardown(): void {
  if (!live) return;
  live.root.unmount();
  live.container.remove();
  live = undefined;
}

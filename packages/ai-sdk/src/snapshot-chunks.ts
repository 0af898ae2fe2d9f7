import type { InputRequest, Message, ResolvedRequest, SessionSnapshot, ToolPart } from "@hitl-kit/protocol";
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { partId } from "./event-chunker.js";
import { answered, type HitlRequestData, REQUEST_PART, replyIdOf, resultChunk } from "./request-part.js";

/** One user message and the assistant messages (steps) that answered it, as the snapshot holds them. */
interface Exchange {
  user?: Message;
  steps: Message[];
}

/**
 * The chunks that rebuild one reply from the snapshot: a step per assistant message, its
 * text and reasoning (left open while the message still streams), its tool calls with their
 * requests, and the results that are in.
 */
export function replyChunks(steps: readonly Message[], snapshot: SessionSnapshot, messageId: string): UIMessageChunk[] {
  const open = new Map(snapshot.pending.map((request) => [request.requestId, request]));
  const settled = new Map(snapshot.resolved.map((resolved) => [resolved.request.requestId, resolved]));
  const chunks: UIMessageChunk[] = [{ type: "start", messageId }];
  for (const step of steps) {
    chunks.push({ type: "start-step" });
    for (const part of step.parts) {
      if (part.type === "tool") {
        chunks.push(...toolChunks(part, open, settled));
        continue;
      }
      const id = partId(part.type, step.id);
      chunks.push({ type: `${part.type}-start`, id }, { type: `${part.type}-delta`, id, delta: part.text });
      if (step.status === "complete") chunks.push({ type: `${part.type}-end`, id });
    }
  }
  return chunks;
}

function toolChunks(
  part: ToolPart,
  open: Map<string, InputRequest>,
  settled: Map<string, ResolvedRequest>,
): UIMessageChunk[] {
  const { toolCallId } = part;
  const chunks: UIMessageChunk[] = [
    { type: "tool-input-available", toolCallId, toolName: part.toolName, input: part.input },
  ];
  const pending = part.requestId === undefined ? undefined : open.get(part.requestId);
  const resolved = part.requestId === undefined ? undefined : settled.get(part.requestId);
  const request = pending ?? resolved?.request;
  if (request) {
    const data: HitlRequestData = resolved
      ? { request, state: "settled", resolution: resolved.resolution }
      : { request, state: "open" };
    chunks.push({ type: `data-${REQUEST_PART}`, id: request.requestId, data });
    // An approval cancelled or expired was never answered: its part shows no approval, only how its call ended.
    const action = resolved?.resolution.action;
    if (request.kind === "approval" && (action === undefined || answered(action))) {
      chunks.push({ type: "tool-approval-request", approvalId: request.requestId, toolCallId });
      if (action !== undefined) {
        const { reason } = resolved!.resolution;
        chunks.push({
          type: "tool-approval-response",
          approvalId: request.requestId,
          approved: action === "accept",
          ...(reason === undefined ? {} : { reason }),
        });
      }
    }
  }
  if (part.state !== "done") return chunks;
  chunks.push(resultChunk(toolCallId, part.outcome!, part.output, request?.kind === "approval"));
  return chunks;
}

/** The snapshot's messages, as exchanges: each user message with the steps of its reply. */
export function exchangesOf(snapshot: SessionSnapshot): Exchange[] {
  const exchanges: Exchange[] = [];
  for (const message of snapshot.messages) {
    if (message.role === "user") exchanges.push({ user: message, steps: [] });
    else if (exchanges.length === 0) exchanges.push({ steps: [message] });
    else exchanges.at(-1)!.steps.push(message);
  }
  return exchanges;
}

/** The chat's id for the reply of an exchange. */
export function replyIdOfExchange(exchange: Exchange): string {
  return replyIdOf(exchange.user?.id ?? exchange.steps[0]!.id);
}

/**
 * The session's messages as `UIMessage`s, to start a `useChat` with after a reload: one
 * user message per person's message and one assistant message per reply, its steps, tool
 * parts and `data-hitl-request` parts built by the AI SDK's own stream reader.
 */
export async function snapshotToUIMessages<Message extends UIMessage = UIMessage>(
  snapshot: SessionSnapshot,
): Promise<Message[]> {
  const messages: UIMessage[] = [];
  for (const exchange of exchangesOf(snapshot)) {
    if (exchange.user) {
      const text = exchange.user.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      messages.push({ id: exchange.user.id, role: "user", parts: [{ type: "text", text }] });
    }
    if (exchange.steps.length === 0) continue;
    const chunks = replyChunks(exchange.steps, snapshot, replyIdOfExchange(exchange));
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let reply: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream, terminateOnError: true })) reply = message;
    if (reply) messages.push({ ...reply, role: "assistant" });
  }
  return messages as Message[];
}

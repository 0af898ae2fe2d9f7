import { type InputRequest, type ProtocolEvent, resolutionOf } from "@hitl-kit/protocol";
import type { UIMessageChunk } from "ai";
import { answered, type HitlRequestData, REQUEST_PART, resultChunk } from "./request-part.js";

/** What a chunker knows before the first event: the tool calls and requests the chat already shows. */
export interface ChunkerSeed {
  /** Tool calls the chat already has parts for: their results and requests get chunks. */
  toolCallIds?: Iterable<string>;
  /** Requests the chat already shows, so a later `input.resolved` can update their parts. */
  requests?: Iterable<InputRequest>;
  /** Assistant messages still streaming, whose text part is open in the chat. */
  streamingMessageIds?: Iterable<string>;
}

/**
 * Turns hitl-kit events into UI message stream chunks, one event at a time. Each hitl-kit
 * assistant message is one step of the chat's assistant message. Tool events for calls the
 * chat does not show (a turn the chat never saw) are left out, so every chunk refers to a
 * part that exists.
 */
export class EventChunker {
  readonly #toolCalls: Set<string>;
  readonly #requests = new Map<string, InputRequest>();
  readonly #assistant: Set<string>;
  readonly #openText: Set<string>;
  readonly #openReasoning = new Set<string>();
  #step: string | undefined;

  constructor(seed: ChunkerSeed = {}) {
    this.#toolCalls = new Set(seed.toolCallIds);
    for (const request of seed.requests ?? []) this.#requests.set(request.requestId, request);
    this.#assistant = new Set(seed.streamingMessageIds);
    this.#openText = new Set(seed.streamingMessageIds);
  }

  /** The chunks that show one event; none for events the chat has no part for. */
  chunks(event: ProtocolEvent): UIMessageChunk[] {
    switch (event.type) {
      case "message.started":
        if (event.role !== "assistant") return [];
        this.#assistant.add(event.messageId);
        this.#step = event.messageId;
        return [{ type: "start-step" }];
      case "text.delta":
        if (!this.#assistant.has(event.messageId)) return [];
        return this.#delta(this.#openText, "text", event.messageId, event.delta);
      case "reasoning.delta":
        if (!this.#assistant.has(event.messageId)) return [];
        return this.#delta(this.#openReasoning, "reasoning", event.messageId, event.delta);
      case "message.completed":
        return this.#close(event.messageId);
      case "message.abandoned": {
        const closed = this.#close(event.messageId);
        if (this.#step !== event.messageId) return closed;
        this.#step = undefined;
        return [...closed, { type: "reset-step" }];
      }
      case "tool.called":
        this.#toolCalls.add(event.toolCallId);
        return [
          {
            type: "tool-input-available",
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            input: event.input,
          },
        ];
      case "input.requested":
        return event.requests.flatMap((request) => this.#requested(request));
      case "input.resolved":
        return this.#resolved(event);
      case "tool.result":
        return this.#result(event);
      default:
        return [];
    }
  }

  #delta(open: Set<string>, kind: "text" | "reasoning", messageId: string, delta: string): UIMessageChunk[] {
    const id = partId(kind, messageId);
    const chunks: UIMessageChunk[] = [];
    if (!open.has(messageId)) {
      open.add(messageId);
      chunks.push({ type: `${kind}-start`, id });
    }
    chunks.push({ type: `${kind}-delta`, id, delta });
    return chunks;
  }

  #close(messageId: string): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    if (this.#openReasoning.delete(messageId))
      chunks.push({ type: "reasoning-end", id: partId("reasoning", messageId) });
    if (this.#openText.delete(messageId)) chunks.push({ type: "text-end", id: partId("text", messageId) });
    return chunks;
  }

  #requested(request: InputRequest): UIMessageChunk[] {
    this.#requests.set(request.requestId, request);
    if (!this.#toolCalls.has(request.toolCallId)) return [];
    const data: HitlRequestData = { request, state: "open" };
    const chunks: UIMessageChunk[] = [{ type: `data-${REQUEST_PART}`, id: request.requestId, data }];
    if (request.kind === "approval") {
      chunks.push({ type: "tool-approval-request", approvalId: request.requestId, toolCallId: request.toolCallId });
    }
    return chunks;
  }

  #resolved(event: Extract<ProtocolEvent, { type: "input.resolved" }>): UIMessageChunk[] {
    const request = this.#requests.get(event.requestId);
    if (!request || !this.#toolCalls.has(event.toolCallId)) return [];
    const data: HitlRequestData = { request, state: "settled", resolution: resolutionOf(event) };
    const chunks: UIMessageChunk[] = [{ type: `data-${REQUEST_PART}`, id: request.requestId, data }];
    if (request.kind === "approval" && answered(event.action)) {
      chunks.push({
        type: "tool-approval-response",
        approvalId: request.requestId,
        approved: event.action === "accept",
        ...(event.reason === undefined ? {} : { reason: event.reason }),
      });
    }
    return chunks;
  }

  #result(event: Extract<ProtocolEvent, { type: "tool.result" }>): UIMessageChunk[] {
    if (!this.#toolCalls.has(event.toolCallId)) return [];
    const { toolCallId, outcome, output } = event;
    return [resultChunk(toolCallId, outcome, output, this.#isApproval(toolCallId))];
  }

  #isApproval(toolCallId: string): boolean {
    for (const request of this.#requests.values()) {
      if (request.toolCallId === toolCallId) return request.kind === "approval";
    }
    return false;
  }
}

/** The chat's part id for a message's text or reasoning. */
export function partId(kind: "text" | "reasoning", messageId: string): string {
  return kind === "text" ? messageId : `${messageId}.reasoning`;
}

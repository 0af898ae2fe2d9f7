import { createAgentClient, replayTransport } from "@hitl-kit/client";
import type { EventInput, InputRequest, ProtocolEvent } from "@hitl-kit/protocol";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { AgentProvider, FallbackWidget, ToolCallPart, useAgent } from "../src/index.js";

afterEach(cleanup);

const question = (requestId: string, prompt: string): InputRequest => ({
  requestId,
  toolCallId: "call_1",
  toolName: "book_table",
  kind: "input",
  prompt,
  input: {},
  answerSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
});

function recording(...inputs: EventInput[]): ProtocolEvent[] {
  return inputs.map((input, index) => ({ ...input, seq: index + 1, sessionId: "ses_r", at: "now" }) as ProtocolEvent);
}

/** A server tool that asked twice (`ctx.ask`): the first answered, the second open. */
const askedTwice = recording(
  { type: "session.created" },
  { type: "turn.started", turnId: "t", cause: "message" },
  { type: "message.started", messageId: "m1", role: "assistant" },
  { type: "tool.called", messageId: "m1", toolCallId: "call_1", toolName: "book_table", input: {} },
  { type: "input.requested", requests: [question("req_seats", "How many seats?")] },
  { type: "input.resolved", requestId: "req_seats", toolCallId: "call_1", action: "accept", value: { answer: "4" } },
  { type: "input.requested", requests: [question("req_time", "Which time?")] },
);

function Transcript() {
  const agent = useAgent();
  return agent.messages.flatMap((message) =>
    message.parts.map((part) =>
      part.type === "tool" ? <ToolCallPart key={part.toolCallId} part={part} fallback={FallbackWidget} /> : null,
    ),
  );
}

describe("<ToolCallPart> of a call that asked more than once", () => {
  it("shows every question of the call in order: the answered one with its answer, then the open one", async () => {
    const replay = replayTransport(askedTwice, { playedTo: askedTwice.length });
    const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
    render(
      <AgentProvider client={client}>
        <Transcript />
      </AgentProvider>,
    );
    await waitFor(() => expect(screen.getAllByRole("region")).toHaveLength(2));
    const [first, second] = screen.getAllByRole("region");
    expect(first!.getAttribute("aria-label") ?? first!.textContent).toMatch(/How many seats\?/);
    expect(first!.getAttribute("data-state")).toBe("resolved");
    expect(first!.textContent).toContain("4");
    expect(second!.textContent).toMatch(/Which time\?/);
    expect(second!.getAttribute("data-state")).toBe("pending");
    client.close();
  });
});

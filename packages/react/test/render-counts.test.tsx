import { createAgentClient, replayTransport } from "@hitl-kit/client";
import {
  defineClientTool,
  type EventInput,
  type InputRequest,
  jsonSchema,
  type ProtocolEvent,
} from "@hitl-kit/protocol";
import { act, cleanup, render } from "@testing-library/react";
import { memo } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { AgentProvider, createWidgetRegistry, ParkedRequests, useAgent, type WidgetProps } from "../src/index.js";

const renders: Record<string, number> = {};
afterEach(() => {
  cleanup();
  for (const key of Object.keys(renders)) delete renders[key];
});

const request = (requestId: string): InputRequest => ({
  requestId,
  toolCallId: `call_${requestId}`,
  toolName: "pick",
  kind: "input",
  input: {},
  answerSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
});

function recording(...inputs: EventInput[]): ProtocolEvent[] {
  return inputs.map((input, index) => ({ ...input, seq: index + 1, sessionId: "ses_r", at: "now" }) as ProtocolEvent);
}

const deltas = Array.from({ length: 10 }, (): EventInput => ({ type: "text.delta", messageId: "m2", delta: "more " }));
const events = recording(
  { type: "session.created" },
  { type: "turn.started", turnId: "t", cause: "message" },
  { type: "message.started", messageId: "m1", role: "assistant" },
  { type: "text.delta", messageId: "m1", delta: "First." },
  { type: "message.completed", messageId: "m1" },
  { type: "tool.called", messageId: "m1", toolCallId: "call_a", toolName: "pick", input: {} },
  { type: "tool.called", messageId: "m1", toolCallId: "call_b", toolName: "pick", input: {} },
  { type: "input.requested", requests: [request("a"), request("b")] },
  { type: "message.started", messageId: "m2", role: "assistant" },
  ...deltas,
);

const pick = defineClientTool({
  name: "pick",
  description: "Pick.",
  inputSchema: jsonSchema<unknown>({}),
  answerSchema: jsonSchema<{ id: string }>({ type: "object" }),
});

const Row = memo(function Row({ index }: { index: number }) {
  const message = useAgent((agent) => agent.messages[index]);
  renders[index] = (renders[index] ?? 0) + 1;
  return <p>{message?.parts.map((part) => (part.type === "text" ? part.text : "")).join("")}</p>;
});

function Transcript() {
  const ids = useAgent((agent) => agent.messages.map((message) => message.id).join(" "));
  return ids.split(" ").map((id, index) => <Row key={id} index={index} />);
}

function Picker({ request, status, respond }: WidgetProps<unknown, { id: string }>) {
  renders[request.requestId] = (renders[request.requestId] ?? 0) + 1;
  return (
    <button type="button" data-state={status} onClick={() => respond({ id: "x" })}>
      {request.requestId}
    </button>
  );
}

describe("render cost", () => {
  it("re-renders only the message a text delta belongs to", async () => {
    const replay = replayTransport(events, { playedTo: 9 });
    const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
    const view = render(
      <AgentProvider client={client}>
        <Transcript />
      </AgentProvider>,
    );
    await act(async () => {
      await client.ready;
    });
    const before = { ...renders };
    expect(before).toEqual({ 0: expect.any(Number), 1: expect.any(Number) });
    for (let i = 0; i < 10; i++) await act(async () => void replay.step());
    expect(view.container.textContent).toBe(`First.${"more ".repeat(10)}`);
    expect(renders[0]).toBe(before[0]);
    expect(renders[1]! - before[1]!).toBe(10);
  });

  it("re-renders a widget only when its own request changes", async () => {
    const widgets = createWidgetRegistry<[typeof pick]>().add("pick", Picker);
    const replay = replayTransport(events, { playedTo: 9 });
    const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
    const view = render(<ParkedRequests agent={client} widgets={widgets} />);
    await act(async () => {
      await client.ready;
    });
    const settled = { ...renders };
    expect(settled).toEqual({ a: expect.any(Number), b: expect.any(Number) });

    for (let i = 0; i < 10; i++) await act(async () => void replay.step());
    expect(renders).toEqual(settled);

    await act(async () => void (await client.respond("a", { id: "x" })));
    expect(view.getByText("a").getAttribute("data-state")).toBe("submitting");
    expect(renders.a).toBeGreaterThan(settled.a!);
    expect(renders.b).toBe(settled.b);
  });
});

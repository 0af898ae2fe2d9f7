import type { InputRequest } from "@hitl-kit/protocol";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FallbackWidget, type WidgetProps } from "../src/index.js";

afterEach(cleanup);

const request: InputRequest = {
  requestId: "req_1",
  toolCallId: "call_1",
  toolName: "collect_details",
  kind: "input",
  prompt: "Your details?",
  input: {},
  answerSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Full name" },
      seats: { type: "integer" },
      plan: { type: "string", enum: ["solo", "team"] },
      notes: { type: "string", maxLength: 2000 },
    },
    required: ["name"],
  },
};
const verbs = { respond: vi.fn(), decline: vi.fn(), cancel: vi.fn() };
const settled = {
  expired: { status: "expired", resolution: { action: "expire" } },
  cancelled: { status: "cancelled", resolution: { action: "cancel" } },
  resolved: { status: "resolved", resolution: { action: "accept", value: { name: "Ada" } } },
} satisfies Record<string, Partial<WidgetProps>>;

function typeDetails() {
  fireEvent.change(screen.getByLabelText(/Full name/), { target: { value: "Ada Lovelace" } });
  fireEvent.change(screen.getByLabelText(/Seats/), { target: { value: "12" } });
  fireEvent.change(screen.getByLabelText(/Notes/), { target: { value: "Near a window,\nplease." } });
}

describe("What the person typed, once the request settles without it", () => {
  it.each(["expired", "cancelled"] as const)("stays on screen, read-only, to copy (%s)", (status) => {
    const { rerender } = render(<FallbackWidget request={request} status="pending" {...verbs} />);
    typeDetails();
    rerender(<FallbackWidget request={request} {...verbs} {...settled[status]} />);
    const kept = screen.getByRole("textbox", { name: "Your answer was not sent. Here is what you typed, to copy." });
    expect(kept).toHaveProperty("readOnly", true);
    expect((kept as HTMLTextAreaElement).value).toBe(
      "Full name: Ada Lovelace\nSeats: 12\nNotes: Near a window,\nplease.",
    );
  });

  it("is not shown when nothing was typed, or once the answer was accepted", () => {
    const { rerender } = render(<FallbackWidget request={request} status="pending" {...verbs} />);
    rerender(<FallbackWidget request={request} {...verbs} {...settled.expired} />);
    expect(screen.queryByRole("textbox")).toBeNull();
    cleanup();
    const second = render(<FallbackWidget request={request} status="pending" {...verbs} />);
    typeDetails();
    second.rerender(<FallbackWidget request={request} {...verbs} {...settled.resolved} />);
    expect(screen.queryByRole("textbox")).toBeNull();
  });

  it("keeps the JSON a schema beyond a form was edited as", () => {
    const tuple = { ...request, answerSchema: { type: "array", prefixItems: [{ type: "string" }] } };
    const { rerender } = render(<FallbackWidget request={tuple} status="pending" {...verbs} />);
    fireEvent.change(screen.getByRole("textbox"), { target: { value: '["half typed' } });
    rerender(<FallbackWidget request={tuple} {...verbs} {...settled.expired} />);
    expect((screen.getByRole("textbox") as HTMLTextAreaElement).value).toBe('["half typed');
  });
});

describe("The fallback widget of an approval, once approved", () => {
  it("shows what was approved, not an empty answer", () => {
    const approval: InputRequest = {
      requestId: "req_2",
      toolCallId: "call_2",
      toolName: "refund_charge",
      kind: "approval",
      prompt: "Refund 1500 on ch_42?",
      input: { chargeId: "ch_42", amount: 1500 },
      answerSchema: { type: "object", properties: {} },
    };
    render(
      <FallbackWidget
        request={approval}
        {...verbs}
        status="resolved"
        resolution={{ action: "accept", value: undefined }}
      />,
    );
    expect(screen.getByText("Approved")).toBeTruthy();
    expect(screen.getByText("ch_42")).toBeTruthy();
    expect(screen.queryByText("Nothing")).toBeNull();
  });
});

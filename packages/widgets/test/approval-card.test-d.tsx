import { defineTool } from "@hitl-kit/protocol";
import { createWidgetRegistry, type WidgetPropsFor } from "@hitl-kit/react";
import { describe, it } from "vitest";
import { z } from "zod";
import { ApprovalCard, FormWidget } from "../src/index.js";

const refund = defineTool({
  name: "refund_charge",
  description: "d",
  inputSchema: z.object({ chargeId: z.string() }),
  approval: () => true,
});
const refundThenAsk = defineTool({
  name: "refund_with_note",
  description: "d",
  inputSchema: z.object({ chargeId: z.string() }),
  approval: () => true,
  asks: z.object({ note: z.string() }),
});
const tools = { refund, refundThenAsk };

describe("ApprovalCard", () => {
  it("registers for an approval-gated tool as it is", () => {
    createWidgetRegistry<typeof tools>().add("refund_charge", ApprovalCard);
  });

  it("takes the props of a tool that needs approval and asks, in its one widget, when the request is the approval", () => {
    function RefundWidget(props: WidgetPropsFor<typeof tools, "refund_with_note">) {
      return props.request.kind === "approval" ? <ApprovalCard {...props} /> : <FormWidget {...props} />;
    }
    createWidgetRegistry<typeof tools>().add("refund_with_note", RefundWidget);
  });
});

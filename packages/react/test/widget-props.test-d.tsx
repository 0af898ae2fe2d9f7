import type { RequestError, SentAnswer } from "@hitl-kit/client";
import { describe, expectTypeOf, it } from "vitest";
import type { WidgetProps } from "../src/index.js";

type Answer = { templateId: string };

function TemplatePicker(props: WidgetProps<{ templates: string[] }, Answer>) {
  switch (props.status) {
    case "pending":
      // @ts-expect-error an open request has no resolution
      props.resolution.value;
      break;
    case "submitting":
      expectTypeOf(props.sent).toEqualTypeOf<SentAnswer<Answer>>();
      // @ts-expect-error an answer in flight has no resolution yet
      props.resolution.value;
      break;
    case "error":
      expectTypeOf(props.error).toEqualTypeOf<RequestError>();
      // the widget stays answerable
      expectTypeOf(props.respond).parameter(0).toEqualTypeOf<Answer>();
      break;
    case "resolved":
      expectTypeOf(props.resolution.value).toEqualTypeOf<Answer>();
      // @ts-expect-error a settled request has no error
      props.error.message;
      break;
    default:
      expectTypeOf(props.status).toEqualTypeOf<"declined" | "cancelled" | "expired">();
      // @ts-expect-error a settled request has no error
      props.error.message;
  }
  return null;
}

describe("WidgetProps", () => {
  it("is a union on status: a widget reads each field only in the state that has it", () => {
    expectTypeOf(TemplatePicker).toBeFunction();
  });

  it("refuses props that mix states", () => {
    const verbs = { respond: (_: Answer) => {}, decline: () => {}, cancel: () => {} };
    const request = {
      requestId: "r",
      toolCallId: "c",
      toolName: "pick_template",
      kind: "input" as const,
      input: { templates: [] },
      answerSchema: {},
    };
    const resolution = { action: "accept", value: { templateId: "a" } } as const;
    <TemplatePicker request={request} status="pending" {...verbs} />;
    <TemplatePicker request={request} status="resolved" resolution={resolution} {...verbs} />;
    // @ts-expect-error a pending request cannot carry a resolution
    <TemplatePicker request={request} status="pending" resolution={resolution} {...verbs} />;
    // @ts-expect-error a resolved request needs its resolution
    <TemplatePicker request={request} status="resolved" {...verbs} />;
    // @ts-expect-error an error state needs its error
    <TemplatePicker request={request} status="error" {...verbs} />;
    // @ts-expect-error a submitting request says what was sent
    <TemplatePicker request={request} status="submitting" {...verbs} />;
  });
});

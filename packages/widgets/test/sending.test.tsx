import type { ApprovalAnswer } from "@hitl-kit/protocol";
import type { WidgetProps } from "@hitl-kit/react";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { ReactElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalCard, ChoicePicker, FormWidget, FreeformAnswer } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

const input = { question: "Which colour?", choices: ["Red", "Green"] };
type Answer = { answer: string };
type Props = WidgetProps<typeof input, Answer>;

// Each widget, the button that sends, the one that gives up, and an answer it would send.
const widgets: { name: string; draw: (props: Props) => ReactElement; send: string; other: string; value: unknown }[] = [
  {
    name: "ApprovalCard",
    draw: (props) => <ApprovalCard {...(props as unknown as WidgetProps<typeof input, ApprovalAnswer>)} />,
    send: "Approve",
    other: "Deny",
    value: {},
  },
  { name: "ChoicePicker", draw: (props) => <ChoicePicker {...props} />, send: "Choose", other: "Decline", value: {} },
  { name: "FreeformAnswer", draw: (props) => <FreeformAnswer {...props} />, send: "Send", other: "Decline", value: {} },
  { name: "FormWidget", draw: (props) => <FormWidget {...props} />, send: "Submit", other: "Decline", value: {} },
];

describe.each(widgets)("$name while its answer is being sent", ({ draw, send, other, value }) => {
  function renderSending() {
    const props = requestProps<typeof input, Answer>(input);
    const view = render(draw(props));
    screen.getByRole("button", { name: send }).focus();
    view.rerender(draw({ ...props, status: "submitting", sent: { action: "accept", value: value as Answer } }));
    return props;
  }

  it("keeps focus on the pressed button, which says Sending… and stays in the tab order", () => {
    renderSending();
    const sending = screen.getByRole("button", { name: "Sending…" });
    expect(document.activeElement).toBe(sending);
    for (const button of [sending, screen.getByRole("button", { name: other })]) {
      expect(button.getAttribute("aria-disabled")).toBe("true");
      expect(button.matches(":disabled")).toBe(false);
    }
  });

  it("ignores presses until the answer is settled", () => {
    const props = renderSending();
    fireEvent.click(screen.getByRole("button", { name: "Sending…" }));
    fireEvent.click(screen.getByRole("button", { name: other }));
    expect(props.respond).not.toHaveBeenCalled();
    expect(props.decline).not.toHaveBeenCalled();
  });
});

describe("a text box while its answer is being sent", () => {
  it("keeps focus and the text, and takes no edits (FreeformAnswer)", () => {
    const props = requestProps({ question: "Why?" });
    const { rerender } = render(<FreeformAnswer {...props} />);
    const box = screen.getByRole("textbox", { name: "Your answer" }) as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: "Because" } });
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect(props.respond).toHaveBeenCalledWith({ answer: "Because" });
    rerender(
      <FreeformAnswer {...props} status="submitting" sent={{ action: "accept", value: { answer: "Because" } }} />,
    );
    expect(document.activeElement).toBe(box);
    expect(box.matches(":disabled")).toBe(false);
    expect(box.readOnly).toBe(true);
    expect(box.getAttribute("aria-disabled")).toBe("true");
  });

  it("keeps focus and takes no edits (ApprovalCard's reason)", () => {
    const props = requestProps<{ id: string }, ApprovalAnswer>({ id: "ch_1" });
    const { rerender } = render(<ApprovalCard {...props} />);
    const reason = screen.getByRole("textbox", { name: /Reason/ }) as HTMLTextAreaElement;
    reason.focus();
    rerender(<ApprovalCard {...props} status="submitting" sent={{ action: "accept", value: {} }} />);
    expect(document.activeElement).toBe(reason);
    expect(reason.matches(":disabled")).toBe(false);
    expect(reason.readOnly).toBe(true);
  });
});

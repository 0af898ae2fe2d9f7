import type { ApprovalAnswer } from "@hitl-kit/protocol";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalCard, FormWidget, FreeformAnswer } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

const note = "Your answer was not sent. Here is what you typed, to copy.";
const expired = { status: "expired", resolution: { action: "expire" } } as const;
const cancelled = { status: "cancelled", resolution: { action: "cancel" } } as const;

describe("Typed text at expiry", () => {
  it("FreeformAnswer keeps the text, read-only, when the request expires before it is sent", () => {
    const props = requestProps({});
    const { rerender } = render(<FreeformAnswer {...props} />);
    fireEvent.change(screen.getByLabelText("Your answer"), { target: { value: "A headline I spent a while on" } });
    rerender(<FreeformAnswer {...props} {...expired} />);
    expect(screen.getByText("The request expired before it was answered.")).toBeTruthy();
    const kept = screen.getByRole("textbox", { name: note }) as HTMLTextAreaElement;
    expect(kept.readOnly).toBe(true);
    expect(kept.value).toBe("A headline I spent a while on");
  });

  it("ApprovalCard keeps the reason when the request is cancelled", () => {
    const props = requestProps<{ amount: number }, ApprovalAnswer>({ amount: 1200 });
    const { rerender } = render(<ApprovalCard {...props} />);
    fireEvent.change(screen.getByLabelText(/Reason/), { target: { value: "Duplicate charge" } });
    rerender(<ApprovalCard {...props} {...cancelled} />);
    expect((screen.getByRole("textbox", { name: note }) as HTMLTextAreaElement).value).toBe("Duplicate charge");
  });

  it("FormWidget keeps what was typed into its fields", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const props = requestProps({}, { answerSchema: schema });
    const { rerender } = render(<FormWidget {...props} />);
    fireEvent.change(screen.getByLabelText(/City/), { target: { value: "Lyon" } });
    rerender(<FormWidget {...props} {...expired} />);
    expect((screen.getByRole("textbox", { name: note }) as HTMLTextAreaElement).value).toBe("City: Lyon");
  });

  it("shows nothing more when nothing was typed", () => {
    const props = requestProps({});
    const { rerender } = render(<FreeformAnswer {...props} />);
    rerender(<FreeformAnswer {...props} {...expired} />);
    expect(screen.queryByRole("textbox")).toBeNull();
  });
});

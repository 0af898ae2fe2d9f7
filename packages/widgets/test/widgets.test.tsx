import type { ApprovalAnswer } from "@hitl-kit/protocol";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalCard, FreeformAnswer, MultiChoicePicker } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

describe("ApprovalCard", () => {
  const input = { chargeId: "ch_1", amount: 1200, meta: { reason: "duplicate" } };

  it("shows the call's input and approves with an optional reason", () => {
    const props = requestProps<typeof input, ApprovalAnswer>(input, { prompt: "Refund 1200?" });
    render(<ApprovalCard {...props} />);
    expect(screen.getByText("Charge id")).toBeTruthy();
    expect(screen.getByText("1200")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect(props.respond).toHaveBeenCalledWith({});
  });

  it("denies with the reason", () => {
    const props = requestProps<typeof input, ApprovalAnswer>(input);
    render(<ApprovalCard {...props} />);
    fireEvent.change(screen.getByLabelText(/Reason/), { target: { value: " Too much " } });
    fireEvent.click(screen.getByRole("button", { name: "Deny" }));
    expect(props.decline).toHaveBeenCalledWith("Too much");
  });

  it("takes focus on the card itself when it appears, so its question is read first", () => {
    const props = requestProps<typeof input, ApprovalAnswer>(input, { prompt: "Refund 1200?" });
    render(<ApprovalCard {...props} />);
    expect(document.activeElement).toBe(screen.getByRole("region", { name: "Refund 1200?" }));
  });
});

describe("MultiChoicePicker", () => {
  const input = { question: "Toppings?", choices: ["Ham", "Olives", "Basil", "Chili"] };

  it("honours the maximum and the minimum", () => {
    const props = requestProps(input);
    render(<MultiChoicePicker {...props} min={2} max={2} />);
    expect(screen.getByText(/Choose 2\./)).toBeTruthy();
    fireEvent.click(screen.getByRole("checkbox", { name: "Olives" }));
    fireEvent.click(screen.getByRole("button", { name: "Choose" }));
    expect(screen.getByRole("alert").textContent).toBe("Choose at least 2.");
    fireEvent.click(screen.getByRole("checkbox", { name: "Ham" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Chili" }));
    expect(screen.getByRole("alert").textContent).toBe("You can choose up to 2.");
    fireEvent.click(screen.getByRole("button", { name: "Choose" }));
    expect(props.respond).toHaveBeenCalledWith({ answers: ["Ham", "Olives"] });
  });

  it("toggles with Space and submits with Enter", () => {
    const props = requestProps(input);
    render(<MultiChoicePicker {...props} />);
    const group = screen.getByRole("group", { name: "Which colour?" });
    fireEvent.keyDown(group, { key: " " });
    fireEvent.keyDown(group, { key: "ArrowDown" });
    fireEvent.keyDown(group, { key: "ArrowDown" });
    fireEvent.keyDown(group, { key: " " });
    fireEvent.keyDown(group, { key: "Enter" });
    expect(props.respond).toHaveBeenCalledWith({ answers: ["Ham", "Basil"] });
  });

  it("puts every checkbox in the tab order, and the arrow keys still move between them", () => {
    render(<MultiChoicePicker {...requestProps(input)} />);
    const boxes = screen.getAllByRole("checkbox");
    expect(boxes.map((box) => box.tabIndex)).toEqual([0, 0, 0, 0]);
    fireEvent.keyDown(screen.getByRole("group", { name: "Which colour?" }), { key: "ArrowDown" });
    expect(document.activeElement).toBe(screen.getByRole("checkbox", { name: "Olives" }));
    expect(boxes.map((box) => box.tabIndex)).toEqual([0, 0, 0, 0]);
  });

  it("leaves a disabled checkbox out of the tab order", () => {
    const options = [
      { label: "Ham", value: "ham" },
      { label: "Olives", value: "olives", disabled: true },
    ];
    render(<MultiChoicePicker {...requestProps(input)} options={options} />);
    expect(screen.getAllByRole("checkbox").map((box) => box.tabIndex)).toEqual([0, -1]);
  });
});

describe("FreeformAnswer", () => {
  it("takes its limits from the answer schema and answers { answer }", () => {
    const props = requestProps(
      { question: "Why?" },
      { answerSchema: { type: "object", properties: { answer: { type: "string", minLength: 3, maxLength: 20 } } } },
    );
    render(<FreeformAnswer {...props} />);
    const box = screen.getByLabelText("Your answer");
    // The limits before the person sends, in the box's description.
    expect(document.getElementById(box.getAttribute("aria-describedby") ?? "")?.textContent).toMatch(
      /^0 \/ 20 characters · Write at least 3 characters\./,
    );
    fireEvent.change(box, { target: { value: "no" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(screen.getByText("Write at least 3 characters.")).toBeTruthy();
    fireEvent.change(box, { target: { value: "Because" } });
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect(props.respond).toHaveBeenCalledWith({ answer: "Because" });
  });

  it("writes the text into the answer's required string property when it has no `answer`", () => {
    const props = requestProps(
      { question: "Why?" },
      {
        answerSchema: {
          type: "object",
          properties: { title: { type: "string" }, note: { type: "string" } },
          required: ["note"],
        },
      },
    );
    render(<FreeformAnswer {...props} />);
    fireEvent.change(screen.getByLabelText("Your answer"), { target: { value: "Too dear" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(props.respond).toHaveBeenCalledWith({ note: "Too dear" });
  });

  it("counts characters as the schema does, an emoji as one, and leaves no limit to the browser's count", () => {
    const props = requestProps(
      { question: "Mood?" },
      { answerSchema: { type: "object", properties: { answer: { type: "string", minLength: 2, maxLength: 3 } } } },
    );
    render(<FreeformAnswer {...props} />);
    const box = screen.getByLabelText("Your answer");
    expect(box.hasAttribute("maxlength")).toBe(false); // the browser's would count 😀 as two
    fireEvent.change(box, { target: { value: "😀" } });
    expect(screen.getByText(/^1 \/ 3 characters/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(screen.getByRole("alert").textContent).toBe("Write at least 2 characters.");
    fireEvent.change(box, { target: { value: "😀😀😀😀" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(screen.getByRole("alert").textContent).toBe("Write at most 3 characters.");
    expect(props.respond).not.toHaveBeenCalled();
    fireEvent.change(box, { target: { value: "😀😀😀" } });
    expect(screen.getByText(/^3 \/ 3 characters/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(props.respond).toHaveBeenCalledWith({ answer: "😀😀😀" });
  });

  it("does not send on the Ctrl+Enter that ends an input method's composition", () => {
    const props = requestProps({ question: "Why?" });
    render(<FreeformAnswer {...props} />);
    const box = screen.getByLabelText("Your answer");
    fireEvent.change(box, { target: { value: "にほんご" } });
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true, isComposing: true });
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true, keyCode: 229 }); // Safari's
    expect(props.respond).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect(props.respond).toHaveBeenCalledWith({ answer: "にほんご" });
  });

  it("announces its own error and takes the person back to the text box", () => {
    const props = requestProps({ question: "Why?" });
    render(<FreeformAnswer {...props} />);
    const send = screen.getByRole("button", { name: "Send" });
    send.focus();
    fireEvent.click(send);
    const box = screen.getByRole("textbox", { name: "Your answer" });
    expect(screen.getByRole("alert").textContent).toBe("Write an answer first.");
    expect(document.activeElement).toBe(box);
    expect(box.getAttribute("aria-invalid")).toBe("true");
    expect(box.getAttribute("aria-describedby")).toContain(screen.getByRole("alert").id);
    expect(props.respond).not.toHaveBeenCalled();
  });
});

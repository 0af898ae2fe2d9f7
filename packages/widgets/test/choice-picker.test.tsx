import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ChoicePicker } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

const input = { question: "Which colour?", choices: ["Red", "Green", "Blue"] };

describe("ChoicePicker keyboard", () => {
  it("focuses the first option when it appears, the only one in the tab order", () => {
    render(<ChoicePicker {...requestProps(input)} />);
    const radios = screen.getAllByRole("radio");
    expect(document.activeElement).toBe(radios[0]);
    expect(radios.map((r) => r.tabIndex)).toEqual([0, -1, -1]);
  });

  it("lets the question and each option take their own text direction (a right-to-left answer in a left-to-right page)", () => {
    render(
      <ChoicePicker {...requestProps({ question: "أي لون؟", choices: ["أحمر", "Green"] }, { prompt: "أي لون؟" })} />,
    );
    expect(screen.getAllByText("أي لون؟").map((element) => element.getAttribute("dir"))).toContain("auto");
    expect(screen.getByText("أحمر").getAttribute("dir")).toBe("auto");
  });

  it("moves and chooses with the arrow keys, wrapping around, and submits with Enter", () => {
    const props = requestProps(input);
    render(<ChoicePicker {...props} />);
    const group = screen.getByRole("radiogroup", { name: "Which colour?" });
    expect(group.getAttribute("aria-required")).toBe("true"); // a choice is needed, said before the refusal
    fireEvent.keyDown(group, { key: "ArrowDown" });
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Green" }));
    expect(screen.getByRole("radio", { name: "Green" }).getAttribute("aria-checked")).toBe("true");
    expect(screen.getByRole("radio", { name: "Green" }).tabIndex).toBe(0);
    fireEvent.keyDown(group, { key: "ArrowUp" });
    fireEvent.keyDown(group, { key: "ArrowUp" });
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Blue" }));
    fireEvent.keyDown(group, { key: "Enter" });
    expect(props.respond).toHaveBeenCalledWith({ answer: "Blue" });
  });

  it("does not answer with the focused option on an Enter before anything is chosen, and says to choose", () => {
    const props = requestProps(input);
    render(<ChoicePicker {...props} />);
    const group = screen.getByRole("radiogroup");
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Red" }));
    fireEvent.keyDown(group, { key: "Enter" });
    expect(props.respond).not.toHaveBeenCalled();
    expect(screen.getByRole("radio", { name: "Red" }).getAttribute("aria-checked")).toBe("false");
    expect(screen.getByText("Choose an option first.")).toBeTruthy();
    fireEvent.keyDown(group, { key: " " });
    fireEvent.keyDown(group, { key: "Enter" });
    expect(props.respond).toHaveBeenCalledWith({ answer: "Red" });
  });

  it("moves to the next option with the left arrow right to left, and back with the right arrow", () => {
    render(
      // happy-dom computes direction from the style, not from dir="rtl" as browsers do.
      <div style={{ direction: "rtl" }}>
        <ChoicePicker {...requestProps(input)} />
      </div>,
    );
    const group = screen.getByRole("radiogroup");
    fireEvent.keyDown(group, { key: "ArrowLeft" });
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Green" }));
    fireEvent.keyDown(group, { key: "ArrowLeft" });
    fireEvent.keyDown(group, { key: "ArrowRight" });
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Green" }));
  });

  it("jumps with Home and End and chooses with Space", () => {
    const props = requestProps(input);
    render(<ChoicePicker {...props} />);
    const group = screen.getByRole("radiogroup");
    fireEvent.keyDown(group, { key: "End" });
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "Blue" }));
    fireEvent.keyDown(group, { key: "Home" });
    fireEvent.keyDown(group, { key: " " });
    expect(screen.getByRole("radio", { name: "Red" }).getAttribute("aria-checked")).toBe("true");
    fireEvent.click(screen.getByRole("button", { name: "Choose" }));
    expect(props.respond).toHaveBeenCalledWith({ answer: "Red" });
  });

  it("skips disabled options", () => {
    render(
      <ChoicePicker
        {...requestProps(input)}
        options={[
          { value: "a", label: "A" },
          { value: "b", label: "B", disabled: true },
          { value: "c", label: "C" },
        ]}
      />,
    );
    fireEvent.keyDown(screen.getByRole("radiogroup"), { key: "ArrowDown" });
    expect(document.activeElement).toBe(screen.getByRole("radio", { name: "C" }));
  });

  it("asks for a choice before submitting", () => {
    const props = requestProps(input);
    render(<ChoicePicker {...props} />);
    fireEvent.click(screen.getByRole("button", { name: "Choose" }));
    expect(screen.getByRole("alert").textContent).toBe("Choose an option first.");
    expect(props.respond).not.toHaveBeenCalled();
  });

  it("maps options to a typed answer", () => {
    const props = requestProps<{ templates: { id: string; name: string }[] }, { templateId: string }>({
      templates: [
        { id: "t1", name: "Bold" },
        { id: "t2", name: "Calm" },
      ],
    });
    render(
      <ChoicePicker
        {...props}
        options={props.request.input.templates.map((t) => ({ value: t.id, label: t.name }))}
        toAnswer={(option) => ({ templateId: option.value })}
      />,
    );
    fireEvent.click(screen.getByRole("radio", { name: "Calm" }));
    fireEvent.click(screen.getByRole("button", { name: "Choose" }));
    expect(props.respond).toHaveBeenCalledWith({ templateId: "t2" });
  });

  it("does not take focus from a text field the person is typing in", () => {
    const field = document.createElement("input");
    document.body.append(field);
    field.focus();
    render(<ChoicePicker {...requestProps(input)} />);
    expect(document.activeElement).toBe(field);
    field.remove();
  });

  it("shows what was chosen once resolved, and the state on its root", () => {
    const { container } = render(
      <ChoicePicker
        {...requestProps(input)}
        status="resolved"
        resolution={{ action: "accept", value: { answer: "Green" } }}
      />,
    );
    expect(container.firstElementChild?.getAttribute("data-state")).toBe("resolved");
    expect(screen.getByText("Green")).toBeTruthy();
    expect(screen.queryByRole("radiogroup")).toBeNull();
  });

  it("keeps focus in the widget, on its frame, once the answer replaces the controls", () => {
    const props = requestProps(input);
    const { rerender } = render(<ChoicePicker {...props} />);
    screen.getByRole("button", { name: "Choose" }).focus();
    rerender(<ChoicePicker {...props} status="resolved" resolution={{ action: "accept", value: { answer: "Red" } }} />);
    expect(document.activeElement).toBe(screen.getByRole("region", { name: "Which colour?" }));
  });
});

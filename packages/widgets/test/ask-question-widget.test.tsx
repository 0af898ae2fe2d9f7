import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { AskQuestionWidget } from "../src/index.js";
import { requestProps } from "./request-props.js";

afterEach(cleanup);

const withChoices = { question: "Which tone?", choices: ["Friendly", "Formal"] };
const freeform = { question: "Any notes for the printer?" };

describe("AskQuestionWidget", () => {
  it("offers the choices as radios and answers { answer }", () => {
    const props = requestProps<typeof withChoices, { answer: string }>(withChoices);
    render(<AskQuestionWidget {...props} />);
    expect(screen.queryByRole("textbox")).toBeNull();
    fireEvent.click(screen.getByRole("radio", { name: "Formal" }));
    fireEvent.click(screen.getByRole("button", { name: "Choose" }));
    expect(props.respond).toHaveBeenCalledWith({ answer: "Formal" });
  });

  it("asks for text without choices, or with none, and answers { answer }", () => {
    for (const input of [freeform, { ...freeform, choices: [] }]) {
      const props = requestProps<typeof input, { answer: string }>(input);
      render(<AskQuestionWidget {...props} />);
      expect(screen.queryByRole("radio")).toBeNull();
      fireEvent.change(screen.getByRole("textbox", { name: "Your answer" }), { target: { value: " Matte paper " } });
      fireEvent.click(screen.getByRole("button", { name: "Send" }));
      expect(props.respond).toHaveBeenCalledWith({ answer: "Matte paper" });
      cleanup();
    }
  });

  it("shows the answer once resolved, either way", () => {
    const chose = render(
      <AskQuestionWidget
        {...requestProps(withChoices)}
        status="resolved"
        resolution={{ action: "accept", value: { answer: "Friendly" } }}
      />,
    );
    expect((chose.container.firstElementChild as HTMLElement).dataset.state).toBe("resolved");
    expect(screen.getByRole("listitem").textContent).toBe("Friendly");
    cleanup();
    render(
      <AskQuestionWidget
        {...requestProps(freeform)}
        status="resolved"
        resolution={{ action: "accept", value: { answer: "Matte paper" } }}
      />,
    );
    expect(screen.getByText("Matte paper")).toBeTruthy();
  });
});

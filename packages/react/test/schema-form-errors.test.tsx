import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SchemaForm } from "../src/index.js";

afterEach(cleanup);

const schema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2 },
    email: { type: "string", format: "email" },
    seats: { type: "integer", minimum: 1, maximum: 8 },
  },
  required: ["name", "seats"],
};

describe("SchemaForm validation", () => {
  it("shows each issue next to its field, focuses the first invalid one and does not submit", () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={schema} onSubmit={onSubmit} />);
    // Not invalid before a check: Chromium would call an untouched required field invalid.
    expect(screen.getByLabelText(/Name/).getAttribute("aria-invalid")).toBe("false");
    expect(screen.getByLabelText(/Seats/).getAttribute("aria-invalid")).toBe("false");
    fireEvent.change(screen.getByLabelText(/Name/), { target: { value: "A" } });
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "not-an-email" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));

    expect(onSubmit).not.toHaveBeenCalled();
    const name = screen.getByLabelText(/Name/);
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(name);
    const error = screen.getByText("Use at least 2 characters.");
    expect(name.getAttribute("aria-describedby")).toContain(error.id);
    expect(screen.getByText("Enter an email address.")).toBeTruthy();
    expect(screen.getByText("This field is required.")).toBeTruthy();
  });

  it("clears an issue once the field is fixed, then submits", () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={schema} onSubmit={onSubmit} />);
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    fireEvent.change(screen.getByLabelText(/Name/), { target: { value: "Ada" } });
    fireEvent.change(screen.getByLabelText(/Seats/), { target: { value: "2" } });
    expect(screen.queryByText("This field is required.")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(onSubmit).toHaveBeenCalledWith({ name: "Ada", seats: 2 });
  });

  it("counts a text's characters as the schema does (an emoji is one), with no limit of the browser's in the way", () => {
    const onSubmit = vi.fn();
    const short = { type: "object", properties: { mood: { type: "string", minLength: 2, maxLength: 3 } } };
    render(<SchemaForm schema={short} onSubmit={onSubmit} />);
    const mood = screen.getByLabelText("Mood");
    expect(mood.hasAttribute("maxlength")).toBe(false); // the browser's would count 😀 as two
    expect(mood.getAttribute("dir")).toBe("auto");
    fireEvent.change(mood, { target: { value: "😀" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(screen.getByText("Use at least 2 characters.")).toBeTruthy();
    fireEvent.change(mood, { target: { value: "😀😀😀" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(onSubmit).toHaveBeenCalledWith({ mood: "😀😀😀" });
  });

  it("shows server issues inline and focuses the first when they arrive", () => {
    const form = (issues?: { path: string[]; message: string }[]) => (
      <SchemaForm schema={schema} defaultValue={{ name: "Ada", seats: 9 }} issues={issues} onSubmit={() => {}} />
    );
    const { rerender } = render(form());
    rerender(form([{ path: ["seats"], message: "Only 4 seats are left." }]));
    const seats = screen.getByLabelText(/Seats/);
    expect(seats.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("Only 4 seats are left.")).toBeTruthy();
    expect(document.activeElement).toBe(seats);
  });

  it("disables every field while disabled, and keeps the submit button focusable but inert", () => {
    const onSubmit = vi.fn();
    render(
      <SchemaForm
        schema={schema}
        defaultValue={{ name: "Ada", seats: 2 }}
        disabled
        submitLabel="Sending…"
        onSubmit={onSubmit}
      />,
    );
    expect(screen.getByLabelText(/Name/).matches(":disabled")).toBe(true);
    const submit = screen.getByRole("button", { name: "Sending…" });
    expect(submit.matches(":disabled")).toBe(false);
    expect(submit.getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(submit);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("renders extra buttons after the submit button", () => {
    const onDecline = vi.fn();
    render(
      <SchemaForm schema={schema} onSubmit={() => {}}>
        <button type="button" onClick={onDecline}>
          Decline
        </button>
      </SchemaForm>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Decline" }));
    expect(onDecline).toHaveBeenCalled();
  });
});

describe("SchemaForm JSON fallback", () => {
  const union = {
    type: "object",
    properties: { items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } } },
    required: ["items"],
  };

  it("edits a schema the form cannot express as JSON and submits the parsed value", () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={union} onSubmit={onSubmit} />);
    const editor = screen.getByLabelText("Answer (JSON)");
    fireEvent.change(editor, { target: { value: '{"items":[{"sku":"A-1"}]}' } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(onSubmit).toHaveBeenCalledWith({ items: [{ sku: "A-1" }] });
  });

  it("refuses text that is not JSON, or JSON that fails the schema, and says why", () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={{ oneOf: [{ type: "string" }, { type: "number" }] }} onSubmit={onSubmit} />);
    const editor = screen.getByLabelText("Answer (JSON)");
    fireEvent.change(editor, { target: { value: "{oops" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(screen.getByText(/This is not valid JSON/)).toBeTruthy();
    expect(editor.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(editor);

    fireEvent.change(editor, { target: { value: "true" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.change(editor, { target: { value: '"fine"' } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(onSubmit).toHaveBeenCalledWith("fine");
  });

  it("shows server issues with their paths", () => {
    render(
      <SchemaForm
        schema={union}
        issues={[{ path: ["items", 0, "sku"], message: "Unknown SKU" }]}
        onSubmit={() => {}}
      />,
    );
    expect(screen.getByText("items.0.sku: Unknown SKU")).toBeTruthy();
  });
});

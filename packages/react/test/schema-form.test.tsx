import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SchemaForm } from "../src/index.js";

afterEach(cleanup);

const submit = () => fireEvent.click(screen.getByRole("button", { name: "Submit" }));
const type = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe("SchemaForm fields", () => {
  it("renders strings with the input type of their format, labelled by title and key", () => {
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            email: { type: "string", format: "email" },
            website: { type: "string", format: "uri", title: "Web site" },
            startsOn: { type: "string", format: "date" },
            meetingAt: { type: "string", format: "date-time" },
            note: { type: "string", maxLength: 2000, description: "Anything else?" },
          },
        }}
        onSubmit={() => {}}
      />,
    );
    expect(screen.getByLabelText("Email")).toHaveProperty("type", "email");
    expect(screen.getByLabelText("Web site")).toHaveProperty("type", "url");
    expect(screen.getByLabelText("Starts on")).toHaveProperty("type", "date");
    expect(screen.getByLabelText("Meeting at")).toHaveProperty("type", "datetime-local");
    const note = screen.getByLabelText("Note");
    expect(note.tagName).toBe("TEXTAREA");
    expect(screen.getByText("Anything else?").id).toBe(note.getAttribute("aria-describedby"));
  });

  it("gives number inputs the bounds a person can type: none for Zod's int, the next integer for an exclusive one", () => {
    const safe = Number.MAX_SAFE_INTEGER;
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            count: { type: "integer", minimum: -safe, maximum: safe },
            seats: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 },
            share: { type: "number", exclusiveMinimum: 0, maximum: 1 },
          },
        }}
        onSubmit={() => {}}
      />,
    );
    const attrs = (label: string) => {
      const input = screen.getByLabelText(label);
      return [input.getAttribute("min"), input.getAttribute("max")];
    };
    expect(attrs("Count")).toEqual([null, null]);
    expect(attrs("Seats")).toEqual(["1", "9"]);
    expect(attrs("Share")).toEqual(["0", "1"]);
  });

  it("renders few options as radios, many as a select, arrays of enums as checkboxes", () => {
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            size: { enum: ["S", "M", "L"] },
            country: { type: "string", enum: ["DE", "FR", "IT", "ES", "NL", "PL"] },
            toppings: { type: "array", items: { enum: ["ham", "olives", "basil"] }, maxItems: 2 },
            vegan: { type: "boolean", title: "Vegan" },
          },
          required: ["size"],
        }}
        onSubmit={() => {}}
      />,
    );
    const size = screen.getByRole("radiogroup", { name: /Size/ });
    expect(within(size).getAllByRole("radio")).toHaveLength(3);
    expect(size.getAttribute("aria-required")).toBe("true");
    expect(screen.getByRole("combobox", { name: "Country" })).toBeTruthy();
    const toppings = screen.getByRole("group", { name: "Toppings" });
    expect(within(toppings).getAllByRole("checkbox")).toHaveLength(3);
    expect(within(toppings).getByText("Choose up to 2.")).toBeTruthy();
    expect(screen.getByRole("checkbox", { name: "Vegan" })).toBeTruthy();
  });

  it("labels enum values by their oneOf titles, or by enumNames as older MCP schemas give them", () => {
    const onSubmit = vi.fn();
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            plan: { type: "string", enum: ["p1", "p2"], enumNames: ["Basic", "Pro"] },
            seat: {
              oneOf: [
                { const: "w", title: "Window" },
                { const: "a", title: "Aisle" },
              ],
            },
          },
          required: ["plan", "seat"],
        }}
        onSubmit={onSubmit}
      />,
    );
    fireEvent.click(screen.getByRole("radio", { name: "Pro" }));
    fireEvent.click(screen.getByRole("radio", { name: "Aisle" }));
    submit();
    expect(onSubmit).toHaveBeenCalledWith({ plan: "p2", seat: "a" });
  });

  it("shows a closed object with no fields as a bare confirmation, not a JSON editor", () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={{ type: "object", properties: {}, additionalProperties: false }} onSubmit={onSubmit} />);
    expect(screen.queryByLabelText("Answer (JSON)")).toBeNull();
    submit();
    expect(onSubmit).toHaveBeenCalledWith({});
  });

  it("wraps nested objects in a fieldset with a legend", () => {
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            address: {
              type: "object",
              title: "Shipping address",
              properties: { city: { type: "string" }, zip: { type: "string" } },
              required: ["city"],
            },
          },
          required: ["address"],
        }}
        onSubmit={() => {}}
      />,
    );
    const group = screen.getByRole("group", { name: /Shipping address/ });
    expect(group.tagName).toBe("FIELDSET");
    expect(within(group).getByLabelText(/City/)).toBeTruthy();
  });
});

describe("SchemaForm values", () => {
  it("coerces values to the schema's types and leaves empty optional fields out", () => {
    const onSubmit = vi.fn();
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            name: { type: "string" },
            nickname: { type: "string" },
            age: { type: "integer", minimum: 0 },
            price: { type: "number" },
            agree: { type: "boolean" },
            size: { enum: [1, 2, 3] },
            tags: { type: "array", items: { enum: ["a", "b", "c"] } },
          },
          required: ["name", "age"],
        }}
        onSubmit={onSubmit}
      />,
    );
    type(/Name/, "Ada");
    type(/Age/, "36");
    type("Price", "9.5");
    fireEvent.click(screen.getByRole("checkbox", { name: "Agree" }));
    fireEvent.click(screen.getByRole("radio", { name: "2" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "c" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "a" }));
    submit();
    expect(onSubmit).toHaveBeenCalledWith({ name: "Ada", age: 36, price: 9.5, agree: true, size: 2, tags: ["a", "c"] });
  });

  it("starts from defaultValue, then from each field's default", () => {
    const onSubmit = vi.fn();
    render(
      <SchemaForm
        schema={{
          type: "object",
          properties: {
            title: { type: "string", default: "Untitled" },
            count: { type: "integer", default: 3 },
            color: { enum: ["red", "blue"], default: "blue" },
          },
        }}
        defaultValue={{ title: "Poster" }}
        onSubmit={onSubmit}
      />,
    );
    expect(screen.getByLabelText("Title")).toHaveProperty("value", "Poster");
    expect(screen.getByRole("radio", { name: "blue" })).toHaveProperty("checked", true);
    submit();
    expect(onSubmit).toHaveBeenCalledWith({ title: "Poster", count: 3, color: "blue" });
  });

  it("sends a date-time as ISO 8601", () => {
    const onSubmit = vi.fn();
    const schema = { type: "object", properties: { at: { type: "string", format: "date-time" } }, required: ["at"] };
    render(<SchemaForm schema={schema} onSubmit={onSubmit} />);
    type(/At/, "2026-03-01T09:30");
    submit();
    expect(onSubmit).toHaveBeenCalledWith({ at: new Date("2026-03-01T09:30").toISOString() });
  });
});

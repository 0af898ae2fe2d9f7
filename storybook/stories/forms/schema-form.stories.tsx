import { SchemaForm } from "@hitl-kit/react";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { bookingSchema, lineItemsSchema } from "../schemas.js";

const meta = {
  title: "Forms/SchemaForm",
  component: SchemaForm,
  args: { schema: bookingSchema, onSubmit: fn() },
  decorators: [(Story) => <div className="hitl-widget">{Story()}</div>],
} satisfies Meta<typeof SchemaForm>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Every field kind; submitting empty shows each issue inline and focuses the first. */
export const RichSchema: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    await expect(args.onSubmit).not.toHaveBeenCalled();
    await expect(canvas.getByLabelText(/Organiser's email/)).toHaveFocus();
    await userEvent.type(canvas.getByLabelText(/Organiser's email/), "ada@example.com");
    await userEvent.type(canvas.getByLabelText(/^Date/), "2026-04-01");
    await userEvent.click(canvas.getByRole("radio", { name: "Borealis" }));
    await userEvent.selectOptions(canvas.getByRole("combobox", { name: "Office" }), "Lisbon");
    await userEvent.click(canvas.getByRole("checkbox", { name: "Whiteboard" }));
    await userEvent.type(canvas.getByLabelText(/^Name/), "Grace");
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    await expect(args.onSubmit).toHaveBeenCalledWith({
      title: "Spring launch sync",
      organiser: "ada@example.com",
      date: "2026-04-01",
      attendees: 4,
      remote: true,
      room: "Borealis",
      city: "Lisbon",
      needs: ["Whiteboard"],
      contact: { name: "Grace" },
    });
  },
};

/** Issues from the server, shown next to their fields. */
export const ServerIssues: Story = {
  args: {
    defaultValue: { organiser: "ada@example.com", date: "2026-04-01", room: "Cosmos", contact: { name: "Grace" } },
    issues: [{ path: ["room"], message: "Cosmos is booked that day." }],
  },
  play: async ({ canvas }) => {
    await expect(canvas.getByText("Cosmos is booked that day.")).toBeVisible();
  },
};

/** A schema the form cannot express is edited as JSON, validated the same way. */
export const JsonFallback: Story = {
  args: { schema: lineItemsSchema },
  play: async ({ args, canvas, userEvent }) => {
    const editor = canvas.getByLabelText(/JSON/);
    await userEvent.clear(editor);
    await userEvent.click(editor);
    await userEvent.paste('{"items":[{"sku":"A-1","quantity":2}]}');
    await userEvent.click(canvas.getByRole("button", { name: "Submit" }));
    await expect(args.onSubmit).toHaveBeenCalledWith({ items: [{ sku: "A-1", quantity: 2 }] });
  },
};

/** Text at 200% on a 320 px phone (WCAG 1.4.10), whose card leaves 266 px for fields: every field stays inside, a date's too. */
export const LargeTextOnAPhone: Story = {
  decorators: [
    (Story) => (
      <div data-phone-width style={{ width: 266 }}>
        {Story()}
      </div>
    ),
  ],
  play: async ({ canvasElement }) => {
    const root = document.documentElement;
    root.style.fontSize = "200%";
    try {
      const phone = canvasElement.querySelector("[data-phone-width]")!.getBoundingClientRect();
      for (const field of canvasElement.querySelectorAll("input, select, textarea")) {
        await expect(field.getBoundingClientRect().right).toBeLessThanOrEqual(phone.right);
      }
    } finally {
      root.style.fontSize = "";
    }
  },
};

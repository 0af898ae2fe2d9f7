import { ToolCallCard } from "@hitl-kit/react";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect } from "storybook/test";

const call = {
  toolCallId: "call_check_stock",
  toolName: "check_stock",
  input: { sku: "A2-calm", warehouse: "Leeds" },
};

const meta = {
  title: "Tool calls/ToolCallCard",
  component: ToolCallCard,
  args: { ...call, state: "running" },
} satisfies Meta<typeof ToolCallCard>;

export default meta;
type Story = StoryObj<typeof meta>;

const card = (canvasElement: HTMLElement) => canvasElement.querySelector(".hitl-tool-call") as HTMLElement;

/** A server tool executing: no result yet. */
export const Running: Story = {
  play: async ({ canvas, canvasElement }) => {
    await expect(card(canvasElement)).toHaveAttribute("data-state", "running");
    await expect(card(canvasElement)).toHaveAttribute("aria-busy", "true");
    await expect(canvas.getByRole("status")).toHaveTextContent("Running…");
    await expect(canvas.queryByText("Result")).toBeNull();
  },
};

/** Its one result is in: the output shows when the card is opened. */
export const Done: Story = {
  args: { state: "done", outcome: "ok", output: { sku: "A2-calm", count: 12 } },
  play: async ({ canvas, canvasElement, userEvent }) => {
    await expect(card(canvasElement)).toHaveAttribute("data-state", "done");
    await expect(canvas.getByRole("status")).toHaveTextContent("Done");
    await userEvent.click(canvas.getByText("Check stock"));
    await expect(canvas.getByText("Result")).toBeVisible();
    await expect(canvas.getByText("12")).toBeVisible();
  },
};

/** The tool threw: `failed`, with the outcome and what happened. */
export const Failed: Story = {
  args: { state: "failed", outcome: "error", output: { message: "No poster has the sku A2-calm." } },
  play: async ({ canvas, canvasElement, userEvent }) => {
    await expect(card(canvasElement)).toHaveAttribute("data-state", "failed");
    await expect(card(canvasElement)).toHaveAttribute("data-outcome", "error");
    await expect(canvas.getByRole("status")).toHaveTextContent("Failed");
    await userEvent.click(canvas.getByText("Check stock"));
    await expect(canvas.getByText("No poster has the sku A2-calm.")).toBeVisible();
  },
};

/** A call the person declined (for an approval-gated tool): failed too, with the outcome `declined`. */
export const Declined: Story = {
  args: { state: "failed", outcome: "declined", output: { reason: "Not today." } },
  play: async ({ canvas, canvasElement }) => {
    await expect(card(canvasElement)).toHaveAttribute("data-outcome", "declined");
    await expect(canvas.getByRole("status")).toHaveTextContent("Declined");
  },
};

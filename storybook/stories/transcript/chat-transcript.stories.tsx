import { ProtocolError } from "@hitl-kit/protocol";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, userEvent, waitFor, within } from "storybook/test";
import answeredResumed from "../../fixtures/answered-resumed.json";
import approvalPending from "../../fixtures/approval-pending.json";
import declined from "../../fixtures/declined.json";
import expired from "../../fixtures/expired.json";
import parkedPicker from "../../fixtures/parked-picker.json";
import partlyAnswered from "../../fixtures/partly-answered.json";
import severalParked from "../../fixtures/several-parked.json";
import streaming from "../../fixtures/streaming.json";
import { ReplayedChat } from "./replayed-chat.js";

/**
 * A chat transcript in each HITL state, replayed from event streams recorded from the
 * real runtime (`npm run record-fixtures`), rendered by the demo's own components.
 */
const meta = {
  title: "Transcript/Chat",
  component: ReplayedChat,
} satisfies Meta<typeof ReplayedChat>;
export default meta;
type Story = StoryObj<typeof meta>;

const conversation = (canvas: HTMLElement) => within(canvas).getByRole("log", { name: "Conversation" });
/**
 * The replay reaches the client after the first render: wait for it before checking what it
 * shows. (Storybook's own UI renders without React's `act`, so a play function can start first.)
 */
const replayed = (canvas: HTMLElement) =>
  waitFor(() => expect(conversation(canvas)).not.toHaveAttribute("data-state", "connecting"));
const widget = (canvas: HTMLElement, tool: string) =>
  canvas.querySelector(`[data-tool="${tool}"] [data-state]`) as HTMLElement;

export const StreamingText: Story = {
  args: { events: streaming, playedTo: streaming.length - 6 },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    await expect(conversation(canvasElement)).toHaveAttribute("data-state", "streaming");
    await expect(canvasElement.querySelector('article[data-role="assistant"]')).toHaveAttribute(
      "data-state",
      "streaming",
    );
  },
};

export const ParkedPicker: Story = {
  args: { events: parkedPicker },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    await expect(conversation(canvasElement)).toHaveAttribute("data-state", "waiting");
    await expect(widget(canvasElement, "pick_template")).toHaveAttribute("data-state", "pending");
    // Announced by its question, once, beside the log; the log itself does not read the widget.
    await expect(canvasElement.querySelector('.chat-transcript-frame > [role="status"]')).toHaveTextContent(
      "Waiting for you: Choose a template for your poster",
    );
    await expect(widget(canvasElement, "pick_template")).toHaveAttribute("aria-live", "off");
  },
};

export const ApprovalPending: Story = {
  args: { events: approvalPending },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    const approval = widget(canvasElement, "refund_charge");
    await expect(approval).toHaveAttribute("data-state", "pending");
    await expect(within(approval).getByRole("button", { name: "Refund" })).toBeEnabled();
  },
};

export const SeveralParked: Story = {
  args: { events: severalParked },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    for (const tool of ["pick_template", "pick_aspect_ratio", "collect_details"]) {
      await expect(widget(canvasElement, tool)).toHaveAttribute("data-state", "pending");
    }
  },
};

export const PartlyAnswered: Story = {
  args: { events: partlyAnswered },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    await expect(widget(canvasElement, "pick_aspect_ratio")).toHaveAttribute("data-state", "resolved");
    await expect(widget(canvasElement, "pick_template")).toHaveAttribute("data-state", "pending");
    await expect(widget(canvasElement, "collect_details")).toHaveAttribute("data-state", "pending");
  },
};

export const Submitting: Story = {
  args: { events: parkedPicker },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    const picker = widget(canvasElement, "pick_template");
    await userEvent.click(within(picker).getByRole("radio", { name: /Calm/ }));
    await userEvent.click(within(picker).getByRole("button", { name: "Use template" }));
    // The replay accepts the answer but never sends input.resolved: it stays submitting.
    await expect(picker).toHaveAttribute("data-state", "submitting");
  },
};

export const AnsweredAndResumed: Story = {
  args: { events: answeredResumed },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    await expect(widget(canvasElement, "pick_template")).toHaveAttribute("data-state", "resolved");
    await expect(conversation(canvasElement)).toHaveTextContent("Calm it is");
    await expect(conversation(canvasElement)).toHaveAttribute("data-state", "idle");
  },
};

export const Declined: Story = {
  args: { events: declined },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    await expect(widget(canvasElement, "refund_charge")).toHaveAttribute("data-state", "declined");
    await expect(conversation(canvasElement)).toHaveTextContent("Check with finance first.");
  },
};

export const Expired: Story = {
  args: { events: expired },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    await expect(widget(canvasElement, "pick_template")).toHaveAttribute("data-state", "expired");
    await expect(conversation(canvasElement)).toHaveTextContent("timed out");
  },
};

export const ServerValidationError: Story = {
  args: {
    events: parkedPicker,
    answer: () => {
      // As the server words it: its message sums the issues up for developers; the widget shows the issues.
      const message = "The bold template is reserved for the spring fair's main stage; choose another.";
      throw new ProtocolError(
        "invalid_answer",
        `The answer does not fit the answer schema of pick_template (templateId: ${message})`,
        [{ path: ["templateId"], message }],
      );
    },
  },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    const picker = widget(canvasElement, "pick_template");
    await userEvent.click(within(picker).getByRole("radio", { name: /Bold/ }));
    await userEvent.click(within(picker).getByRole("button", { name: "Use template" }));
    await expect(picker).toHaveAttribute("data-state", "error");
    const alert = within(picker).getByRole("alert");
    await expect(alert).toHaveTextContent("The answer does not fit what was asked.");
    await expect(alert).toHaveTextContent("main stage");
    await expect(alert).not.toHaveTextContent("pick_template");
  },
};

export const MessageNotSent: Story = {
  args: {
    events: answeredResumed,
    send: "make another one, in blue",
    answer: () => {
      throw new ProtocolError("unavailable", "The store is unavailable.");
    },
  },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    const log = conversation(canvasElement);
    const mine = () => log.querySelectorAll('article[data-role="user"]');
    const unsent = await within(log).findByRole("alert");
    await expect(unsent).toHaveTextContent("Not sent: The server is restarting or busy right now.");
    await expect(mine()[1]).toHaveAttribute("data-state", "failed");
    await expect(mine()[1]).toHaveTextContent("make another one, in blue");
    await userEvent.click(within(mine()[1] as HTMLElement).getByRole("button", { name: "Discard" }));
    await expect(mine()).toHaveLength(1);
  },
};

export const Reconnecting: Story = {
  args: { events: parkedPicker, reconnecting: true },
  play: async ({ canvasElement }) => {
    await replayed(canvasElement);
    const connection = canvasElement.querySelector(".chat-connection");
    await expect(connection).toHaveAttribute("data-state", "reconnecting");
    await expect(connection).toHaveTextContent("Reconnecting");
    await expect(widget(canvasElement, "pick_template")).toHaveAttribute("data-state", "pending");
  },
};

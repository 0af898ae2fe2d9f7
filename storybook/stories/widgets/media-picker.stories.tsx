import { MediaPicker } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { picture, request, states } from "../fixtures.js";

const items = [
  { id: "m1", src: picture(200, "sun"), alt: "Sunrise over a blue sea" },
  { id: "m2", src: picture(120, "hills"), alt: "Green hills at noon" },
  { id: "m3", src: picture(20, "circle"), alt: "An orange circle on sand" },
  { id: "m4", src: picture(280, "sun"), alt: "A violet evening sky" },
  { id: "m5", src: picture(40, "hills"), alt: "Desert dunes" },
  { id: "m6", src: picture(170, "circle"), alt: "A teal circle on mint" },
];

const meta = {
  title: "Widgets/MediaPicker",
  component: MediaPicker,
  args: {
    request: request(
      "pick_media",
      {},
      { type: "object", properties: { mediaIds: { type: "array", items: { type: "string" }, maxItems: 3 } } },
      { prompt: "Which pictures should go on the poster?" },
    ),
    items,
    multiple: true,
    max: 3,
    status: "pending",
    respond: fn(),
    decline: fn(),
    cancel: fn(),
  },
} satisfies Meta<typeof MediaPicker>;

export default meta;
type Story = StoryObj<typeof meta>;

/** Several pictures, up to three; the answer is `{ mediaIds }`. */
export const Pending: Story = {
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("checkbox", { name: "Green hills at noon" }));
    await userEvent.click(canvas.getByRole("checkbox", { name: "Desert dunes" }));
    await userEvent.click(canvas.getByRole("button", { name: "Choose" }));
    await expect(args.respond).toHaveBeenCalledWith({ mediaIds: ["m2", "m5"] });
  },
};

/** One picture; the answer is `{ mediaId }`. */
export const Single: Story = {
  args: { multiple: false },
  play: async ({ args, canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: "Desert dunes" }));
    await userEvent.click(canvas.getByRole("button", { name: "Choose" }));
    await expect(args.respond).toHaveBeenCalledWith({ mediaId: "m5" });
  },
};

export const Submitting: Story = { args: states.submitting };
/** Answered: the chosen pictures stay in place, each with its label. */
export const Resolved: Story = {
  args: states.resolved({ mediaIds: ["m1", "m4"] }),
  play: async ({ canvas }) => {
    const chosen = canvas.getAllByRole("listitem");
    await expect(chosen.map((item) => item.textContent)).toEqual(["Sunrise over a blue sea", "A violet evening sky"]);
    await expect(chosen.map((item) => item.querySelector("img")?.getAttribute("src"))).toEqual([
      items[0]?.src,
      items[3]?.src,
    ]);
  },
};

/** One picture, answered with a custom `toAnswer`: the resolved view still finds it. */
export const ResolvedSingle: Story = {
  args: {
    multiple: false,
    toAnswer: (chosen: { id: string }[]) => ({ picture: chosen[0]?.id }),
    ...states.resolved({ picture: "m5" }),
  },
  play: async ({ canvas }) => {
    await expect(canvas.getByRole("listitem").textContent).toBe("Desert dunes");
  },
};
export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };

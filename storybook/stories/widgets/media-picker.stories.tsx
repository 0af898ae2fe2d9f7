import { MediaPicker } from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, fn } from "storybook/test";
import { request, states } from "../fixtures.js";
import { expectInert, refusedUrls } from "./model-payloads.js";

// The demo's pictures, which Storybook serves from apps/chat/public.
const items = [
  { id: "m1", src: "/media/ocean.svg", alt: "The sun setting over ocean waves" },
  { id: "m2", src: "/media/forest.svg", alt: "A pine forest in morning light" },
  { id: "m3", src: "/media/coffee.svg", alt: "A steaming cup of coffee" },
  { id: "m4", src: "/media/aurora.svg", alt: "Green northern lights above dark hills" },
  { id: "m5", src: "/media/desert.svg", alt: "Desert dunes" },
  { id: "m6", src: "/media/flowers.svg", alt: "Colourful flowers in a meadow" },
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
    await userEvent.click(canvas.getByRole("checkbox", { name: "A pine forest in morning light" }));
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

export const Submitting: Story = { args: states.submitting({ mediaIds: ["m1", "m4"] }) };
/** Answered: the chosen pictures stay in place, each with its label. */
export const Resolved: Story = {
  args: states.resolved({ mediaIds: ["m1", "m4"] }),
  play: async ({ canvas }) => {
    const chosen = canvas.getAllByRole("listitem");
    await expect(chosen.map((item) => item.textContent)).toEqual([
      "The sun setting over ocean waves",
      "Green northern lights above dark hills",
    ]);
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
/**
 * Pictures whose URLs the model wrote to run script, leave the page's origin or call the
 * person's machine: each shows a placeholder with its label, and no request leaves.
 */
export const RefusedUrls: Story = {
  args: {
    items: [
      items[0]!,
      ...Object.entries(refusedUrls).map(([name, src]) => ({ id: name, src, alt: `Refused: ${name}` })),
    ],
  },
  play: async ({ canvasElement }) => {
    await expectInert(
      canvasElement,
      Object.keys(refusedUrls).map((name) => `Refused: ${name}`),
    );
    await expect(canvasElement.querySelector("img")?.getAttribute("src")).toBe("/media/ocean.svg");
  },
};

export const Declined: Story = { args: states.declined };
export const Cancelled: Story = { args: states.cancelled };
export const Expired: Story = { args: states.expired };
export const Failed: Story = { name: "Error", args: states.error() };

/**
 * A 320 px phone zoomed to 200 % (160 CSS px, less the chat's margins): the grid has as many
 * columns as fit, one at least, and never overflows the card.
 */
export const Narrow: Story = {
  decorators: [
    (Story) => (
      <div style={{ width: 136 }}>
        <Story />
      </div>
    ),
  ],
  play: async ({ canvasElement }) => {
    const card = canvasElement.querySelector<HTMLElement>(".hitl-widget")!;
    const grid = canvasElement.querySelector<HTMLElement>(".hitl-options--grid")!;
    const edge = card.getBoundingClientRect().right;
    const past = [...card.querySelectorAll<HTMLElement>("*")].filter(
      (el) => el.getBoundingClientRect().right > edge + 0.5,
    );
    await expect(past.map((el) => el.className)).toEqual([]);
    await expect(card.scrollWidth).toBeLessThanOrEqual(card.clientWidth);
    await expect(grid.scrollWidth).toBeLessThanOrEqual(grid.clientWidth);
  },
};

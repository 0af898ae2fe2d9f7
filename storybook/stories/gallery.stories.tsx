import type { WidgetProps } from "@hitl-kit/react";
import {
  ApprovalCard,
  ChoicePicker,
  FormWidget,
  FreeformAnswer,
  MultiChoicePicker,
  TemplatePicker,
} from "@hitl-kit/widgets";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect } from "storybook/test";
import { AspectRatioPicker } from "../../apps/chat/src/widgets/aspect-ratio-picker.js";
import { questionAnswer, request, states } from "./fixtures.js";
import { templates } from "./widgets/template-picker.stories.js";

const verbs = { respond: () => {}, decline: () => {}, cancel: () => {} };

function open<Input>(req: WidgetProps<Input, never>["request"]) {
  return { request: req, status: "pending" as const, ...verbs };
}

/** Several widgets in several states, side by side: the kit at a glance. */
function Gallery() {
  return (
    <div className="hitl-gallery">
      <div className="hitl-gallery__column">
        <ChoicePicker
          {...open(
            request("ask_question", { choices: ["Friendly", "Formal", "Playful"] }, questionAnswer, {
              prompt: "Which tone should the launch email take?",
            }),
          )}
        />
        <ApprovalCard
          {...open(
            request(
              "refund_charge",
              { chargeId: "ch_3PqL9x2e", amount: 1250, currency: "EUR" },
              {},
              { prompt: "Refund €1,250.00 to Ada Lovelace?", kind: "approval" },
            ),
          )}
        />
      </div>
      <div className="hitl-gallery__column">
        <TemplatePicker
          {...open(request("pick_template", { templates }, {}, { prompt: "Which template should the poster use?" }))}
        />
        <AspectRatioPicker
          {...open(request("choose_aspect_ratio", {}, {}, { prompt: "Which format?" }))}
          {...states.resolved({ ratio: "4:5" })}
        />
        <FreeformAnswer
          {...open(request("ask_question", {}, questionAnswer, { prompt: "Any notes for the printer?" }))}
          {...states.declined}
        />
      </div>
      <div className="hitl-gallery__column">
        <FormWidget
          {...open(
            request(
              "ship_posters",
              {},
              {
                type: "object",
                properties: {
                  recipient: { type: "string", title: "Recipient" },
                  copies: { type: "integer", title: "Copies", minimum: 1, default: 12 },
                  express: { type: "boolean", title: "Express shipping" },
                },
                required: ["recipient", "copies"],
              },
              { prompt: "Where should the posters go?" },
            ),
          )}
          defaultValue={{ recipient: "Studio North" }}
          {...states.error([{ path: ["copies"], message: "Only 8 copies are in stock." }])}
        />
        <MultiChoicePicker
          {...open(
            request("pick_channels", { choices: ["Email", "Push", "SMS"] }, {}, { prompt: "Where to announce it?" }),
          )}
          {...states.submitting}
        />
      </div>
    </div>
  );
}

const meta = {
  title: "Gallery",
  component: Gallery,
  parameters: { layout: "fullscreen" },
} satisfies Meta<typeof Gallery>;

export default meta;

/** The kit at a glance; also the source of docs/widgets.png. */
export const AllWidgets: StoryObj<typeof meta> = {
  play: async ({ canvas }) => {
    await expect(canvas.getAllByRole("region")).toHaveLength(7);
  },
};

/** The same in the dark theme, so axe checks its contrast too. */
export const AllWidgetsDark: StoryObj<typeof meta> = { globals: { theme: "dark" } };

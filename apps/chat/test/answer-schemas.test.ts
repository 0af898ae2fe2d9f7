import { describe, expect, it } from "vitest";
import { disagreements } from "../../../packages/protocol/test/answer-agreement.js";
import { collectDetails, pickAspectRatio, pickMedia, pickTemplate } from "../src/shared/tools.js";

/** Good answers of each demo client tool; the test also tries every value near them. */
const answers = [
  { tool: pickTemplate, samples: [{ templateId: "bold" }] },
  { tool: pickAspectRatio, samples: [{ ratio: "4:5" }] },
  { tool: pickMedia, samples: [{ mediaIds: ["ocean"] }, { mediaIds: ["ocean", "city", "forest", "desert"] }] },
  {
    tool: collectDetails,
    samples: [
      {
        name: "Ada Lovelace",
        email: "ada@example.com",
        date: "2026-05-01",
        plan: "team",
        seats: 12,
        newsletter: false,
        notes: "Vegetarian lunch, please.",
      },
    ],
  },
];

describe("the demo's answer schemas", () => {
  it.each(answers)(
    "$tool.name: the browser's check of its JSON Schema agrees with zod on the server",
    async ({ tool, samples }) => {
      expect(await disagreements(tool.answerSchema, samples)).toEqual([]);
    },
  );
});

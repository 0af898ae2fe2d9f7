/**
 * The demo's tools, defined once and imported by the server and by the browser. Nothing
 * here may import server code: the server attaches executors in `server/demo-tools.ts`.
 */
import { always, defineClientTool, defineTool } from "@hitl-kit/protocol";
import { z } from "zod";

/** A poster template the person can choose. */
export const Template = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  preview: z.string().optional().describe("A preview image URL"),
  colors: z.array(z.string()).optional(),
});
/** @see Template */
export type Template = z.infer<typeof Template>;

/** One picture of the media library (`GET /api/media`). */
export const Media = z.object({ id: z.string(), src: z.string(), alt: z.string(), label: z.string() });
/** @see Media */
export type Media = z.infer<typeof Media>;

/** The aspect ratios a poster may have. */
export const aspectRatios = ["1:1", "4:5", "3:2", "16:9", "9:16"] as const;

/** Asks the person to choose a poster template from the ones the model offers. */
export const pickTemplate = defineClientTool({
  name: "pick_template",
  description: "Ask the person to choose a poster template. Offer the templates listed in the system prompt.",
  inputSchema: z.object({ templates: z.array(Template).min(1) }),
  answerSchema: z.object({ templateId: z.string().min(1) }),
  prompt: "Choose a template for your poster",
});

/** Asks the person for the poster's aspect ratio. */
export const pickAspectRatio = defineClientTool({
  name: "pick_aspect_ratio",
  description: "Ask the person to choose the poster's aspect ratio.",
  inputSchema: z.object({ ratios: z.array(z.enum(aspectRatios)).min(1).optional() }),
  answerSchema: z.object({ ratio: z.enum(aspectRatios) }),
  prompt: "Which shape should the poster have?",
});

/**
 * Asks the person to choose pictures from the media library. The widget loads the
 * library itself; the server's `resolve` turns the chosen ids into media objects.
 */
export const pickMedia = defineClientTool({
  name: "pick_media",
  description: "Ask the person to choose pictures for the poster from their media library.",
  inputSchema: z.object({ max: z.number().int().min(1).max(4).describe("How many pictures at most") }),
  answerSchema: z.object({ mediaIds: z.array(z.string()).min(1).max(4) }),
  prompt: (input) => `Choose up to ${input.max} pictures from your library`,
});

/** The multi-question form behind `collect_details`. */
export const Details = z.object({
  // A pattern, not .trim(): JSON Schema cannot say "trim first", and the browser checks
  // answers with the JSON Schema, so both sides refuse a name of spaces alike.
  name: z.string().min(1).max(80).regex(/\S/).meta({ title: "Your name" }),
  email: z.email().meta({ title: "Email" }),
  date: z.iso.date().meta({ title: "Event date" }),
  plan: z.enum(["starter", "team", "enterprise"]).meta({ title: "Plan" }),
  seats: z.number().int().min(1).max(500).meta({ title: "Seats", description: "Between 1 and 500" }),
  newsletter: z.boolean().meta({ title: "Send me product news" }),
  notes: z.string().max(500).optional().meta({ title: "Notes" }),
});

/** Asks the person a few questions at once, as a form. */
export const collectDetails = defineClientTool({
  name: "collect_details",
  description: "Ask the person for their booking details in one form.",
  inputSchema: z.object({ reason: z.string().describe("Why the details are needed, in one sentence") }),
  answerSchema: Details,
  prompt: (input) => input.reason,
});

/** Publishes a poster; the person approves every call. */
export const publishPoster = defineTool({
  name: "publish_poster",
  description: "Publish the finished poster. The person is asked to approve it.",
  inputSchema: z.object({
    title: z.string().min(1).max(120),
    templateId: z.string(),
    ratio: z.enum(aspectRatios),
    mediaIds: z.array(z.string()).min(1),
  }),
  approval: always(),
  prompt: (input) => `Publish “${input.title}”?`,
});

/** Refunds a charge; amounts over 1000 need the person's approval. */
export const refundCharge = defineTool({
  name: "refund_charge",
  description: "Refund an amount on a charge. Amounts over 1000 are approved by the person first.",
  inputSchema: z.object({ chargeId: z.string(), amount: z.number().positive() }),
  approval: ({ input }) => input.amount > 1000,
  prompt: (input) => `Refund ${input.amount.toFixed(2)} on ${input.chargeId}?`,
});

/**
 * Books a table through the bookings MCP server (examples/mcp-booking), whose tool asks
 * the person for the seats and the date with an MCP elicitation.
 */
export const bookTable = defineTool({
  name: "book_table",
  description: "Book a table at a restaurant. The bookings service asks the person for the seats and the date.",
  inputSchema: z.object({ restaurant: z.string() }),
});

/** Every demo tool, for `createWidgetRegistry<typeof tools>()` and the runtime. */
export const tools = [
  pickTemplate,
  pickAspectRatio,
  pickMedia,
  collectDetails,
  publishPoster,
  refundCharge,
  bookTable,
] as const;

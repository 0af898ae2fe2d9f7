import type { ScriptContext, ScriptedReply } from "@hitl-kit/server";
import type { Media } from "../src/shared/tools.js";
import { templates } from "./catalog.js";

type Result = ScriptContext["lastResults"][number];

/** The words that start each flow again, by the tool that ended it. */
const restartHint: Record<string, string> = {
  pick_template: "say “poster” to start again",
  pick_aspect_ratio: "say “poster” to start again",
  pick_media: "say “poster” to start again",
  publish_poster: "say “poster” to start again",
  refund_charge: "say “refund 1500” to try again",
  collect_details: "say “details” to open the form again",
  book_table: "say “book a table” to try again",
};

/** What each tool's decline means, in the reply. */
const declined: Record<string, string> = {
  pick_template: "No template then",
  pick_aspect_ratio: "No shape, no poster",
  pick_media: "No pictures, no poster",
  publish_poster: "Okay, I didn't publish it",
  refund_charge: "Okay, no refund — the charge is untouched",
  collect_details: "No details then",
  book_table: "No booking then",
};

const help =
  "I'm the scripted demo model. Try “make a poster for the spring fair”, “refund 250” (runs at once), " +
  "“refund 1500” (asks for your approval), “details” (a form) or “book a table” (an MCP server asks).";

/**
 * The scripted model's script, a function of the conversation: a new message starts a
 * flow (poster, refund, details) or gets help; each tool result moves its flow on, and
 * a decline, cancel, expiry or error ends it with a reply that says how to start again.
 * The flows are written down in apps/chat/README.md.
 */
export function demoScript(context: ScriptContext): ScriptedReply {
  const last = context.lastResults.at(-1);
  if (!last) return replyToMessage(context.lastUserText);
  if (last.type !== "json") return replyToFailure(last);
  return replyToResult(last, okResultsSinceLastUser(context.prompt), context.lastUserText);
}

function replyToMessage(text: string): ScriptedReply {
  if (/poster/i.test(text)) {
    const title = posterTitle(text);
    return {
      text: `Let's make a poster called “${title}”. First, pick a template.`,
      toolCalls: [{ toolName: "pick_template", input: { templates } }],
    };
  }
  const refund = /refund\D*?(\d+(?:\.\d+)?)/i.exec(text);
  if (refund) {
    const amount = Number(refund[1]);
    const note = amount > 1000 ? " That's over 1000, so I need your approval first." : "";
    return {
      text: `Refunding ${amount.toFixed(2)} on charge ch_demo_1042.${note}`,
      toolCalls: [{ toolName: "refund_charge", input: { chargeId: "ch_demo_1042", amount } }],
    };
  }
  if (/refund/i.test(text)) return { text: "How much should I refund? Say “refund 250” or “refund 1500”." };
  if (/details/i.test(text)) {
    return {
      text: "I need a few details for your booking.",
      toolCalls: [{ toolName: "collect_details", input: { reason: "A few details for your booking" } }],
    };
  }
  if (/\bbook\b/i.test(text)) {
    return {
      text: "Booking at Nora through the bookings service.",
      toolCalls: [{ toolName: "book_table", input: { restaurant: "Nora" } }],
    };
  }
  return { text: help };
}

function replyToResult(last: Result, done: Map<string, unknown>, userText: string): ScriptedReply {
  const output = last.output as Record<string, unknown>;
  switch (last.toolName) {
    case "pick_template": {
      const template = templates.find((t) => t.id === output.templateId);
      return {
        text: `${template?.name ?? "That template"} it is. Which shape should the poster have?`,
        toolCalls: [{ toolName: "pick_aspect_ratio", input: { ratios: ["1:1", "4:5", "3:2", "16:9", "9:16"] } }],
      };
    }
    case "pick_aspect_ratio":
      return {
        text: `${String(output.ratio)} — nice. Now choose up to 3 pictures from your library.`,
        toolCalls: [{ toolName: "pick_media", input: { max: 3 } }],
      };
    case "pick_media": {
      const media = output.media as Media[];
      return {
        text: `Got ${listOf(media.map((m) => m.label))}. The poster is ready; I need your OK to publish it.`,
        toolCalls: [
          {
            toolName: "publish_poster",
            input: {
              title: posterTitle(userText),
              templateId: (done.get("pick_template") as { templateId: string }).templateId,
              ratio: (done.get("pick_aspect_ratio") as { ratio: string }).ratio,
              mediaIds: media.map((m) => m.id),
            },
          },
        ],
      };
    }
    case "publish_poster":
      return { text: `Published “${String(output.title)}” — it's live at ${String(output.url)}.` };
    case "refund_charge":
      return {
        text: `Refunded ${Number(output.amount).toFixed(2)} on ${String(output.chargeId)} (refund ${String(output.refundId)}).`,
      };
    case "collect_details": {
      const news = output.newsletter ? ", and you're on the newsletter" : "";
      return {
        text:
          `Thanks, ${String(output.name)} — ${String(output.plan)} plan for ${String(output.seats)} seats on ` +
          `${String(output.date)}. I'll write to ${String(output.email)}${news}.`,
      };
    }
    case "book_table":
      if (output.status !== "booked")
        return { text: `No table booked (${String(output.status)}) — ${restartHint.book_table}.` };
      return {
        text: `Booked ${String(output.seats)} seats at ${String(output.restaurant)} on ${String(output.date)}.`,
      };
    default:
      return { text: help };
  }
}

function replyToFailure(last: Result): ScriptedReply {
  const hint = restartHint[last.toolName] ?? "say what you'd like to do";
  if (last.type === "execution-denied") {
    const reason = (last.output as { reason?: string } | undefined)?.reason;
    const because = reason ? ` (you said: “${reason}”)` : "";
    return { text: `${declined[last.toolName] ?? "Okay, stopped"}${because} — ${hint}.` };
  }
  const output = String(last.output ?? "");
  if (/expired/i.test(output)) return { text: `That question expired before anyone answered, so I stopped — ${hint}.` };
  if (/^cancelled/i.test(output)) return { text: `Cancelled — nothing was changed; ${hint}.` };
  // The tool may have done its work (a refund paid) before its server stopped: asking again could do it twice.
  if (/may or may not have completed/i.test(output)) {
    return { text: `${output} Check whether it happened before you ask again.` };
  }
  return { text: `Something went wrong: ${output} — ${hint}.` };
}

/** The ok results of the tool calls since the newest user message, by tool name. */
function okResultsSinceLastUser(prompt: ScriptContext["prompt"]): Map<string, unknown> {
  const results = new Map<string, unknown>();
  for (const message of prompt) {
    if (message.role === "user") results.clear();
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.output.type === "json") results.set(part.toolName, part.output.value);
    }
  }
  return results;
}

/** "make a poster for the spring fair" → "Spring fair"; without a subject, "Untitled poster". */
export function posterTitle(text: string): string {
  const subject = /poster\s+(?:for|about|of|called)\s+(?:the\s+|a\s+|an\s+)?(.+)/i.exec(text)?.[1];
  const cleaned = subject
    ?.replace(/[.!?\s]+$/, "")
    .slice(0, 60)
    .trim();
  return cleaned ? cleaned.charAt(0).toUpperCase() + cleaned.slice(1) : "Untitled poster";
}

function listOf(words: string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

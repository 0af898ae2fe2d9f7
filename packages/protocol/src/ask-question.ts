import { z } from "zod";
import { type ClientToolDefinition, defineClientTool } from "./define-tool.js";

const questionShape = {
  question: z.string().min(1).describe("The question to ask the person, in one or two sentences."),
  choices: z
    .array(z.string().min(1))
    .max(20)
    .optional()
    .describe("Answers the person can pick from; omit for a free-text answer."),
};

const answerSchema = z.object({ answer: z.string().min(1).max(10_000) });

type QuestionShape = typeof questionShape;

/**
 * The built-in question tool (`ask_question`): the model asks the person a question,
 * optionally with choices, and gets `{ answer }` back. Pass an `inputSchema` to widen the
 * input with extra typed fields the model fills in (they reach the widget typed).
 * @example
 * const ask = askQuestion({ inputSchema: z.object({ urgency: z.enum(["low", "high"]) }) });
 */
export function askQuestion<Extra extends z.ZodRawShape = Record<never, never>>(
  options: {
    /** Extra fields of the question; they may not replace `question` or `choices`. */
    inputSchema?: z.ZodObject<Extra>;
    name?: string;
    description?: string;
  } = {},
): ClientToolDefinition<"ask_question", z.ZodObject<QuestionShape & Extra>, typeof answerSchema> {
  const extra = options.inputSchema?.shape ?? ({} as Extra);
  for (const key of Object.keys(extra)) {
    if (key in questionShape)
      throw new TypeError(`askQuestion: the input field "${key}" is built in; name yours differently.`);
  }
  return defineClientTool({
    name: (options.name ?? "ask_question") as "ask_question",
    description:
      options.description ??
      "Ask the person a question and wait for the answer. Use it when you need a decision or a fact only they have.",
    inputSchema: z.object({ ...questionShape, ...extra }) as z.ZodObject<QuestionShape & Extra>,
    answerSchema,
    prompt: (input) => (input as { question: string }).question,
  });
}

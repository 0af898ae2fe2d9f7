import { isDataUIPart, isToolUIPart, type UIMessage } from "ai";
import { type HitlRequestData, REQUEST_PART } from "./request-part.js";

/**
 * For `useChat({ sendAutomaticallyWhen })`: true when the person has answered every request
 * of the last reply that the server still has open, and answered at least one — then the
 * chat sends the answers at once. A server tool that is only running does not hold it back.
 * @example
 * useChat({ transport, sendAutomaticallyWhen: hitlAnswersComplete });
 */
export function hitlAnswersComplete({ messages }: { messages: UIMessage[] }): boolean {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return false;
  const open = new Set<string>();
  for (const part of last.parts) {
    if (isDataUIPart(part) && part.type === `data-${REQUEST_PART}`) {
      const data = part.data as HitlRequestData;
      if (data.state === "open") open.add(data.request.toolCallId);
    }
  }
  let answered = 0;
  for (const part of last.parts) {
    if (!isToolUIPart(part) || !open.has(part.toolCallId)) continue;
    if (part.state === "approval-requested" || part.state === "input-available") return false;
    if (part.state === "approval-responded" || part.state === "output-available" || part.state === "output-error") {
      answered += 1;
    }
  }
  return answered > 0;
}

/**
 * The README's client example: a chat UI with the hook dropped in and a custom picker
 * registered for one tool. Type-checked by `npm run typecheck`.
 */
/// <reference types="vite/client" />
import { defineClientTool, defineTool } from "@hitl-kit/protocol";
import { createWidgetRegistry, ParkedRequest, useAgent, type WidgetProps } from "@hitl-kit/react";
import { ApprovalCard } from "@hitl-kit/widgets";
import "@hitl-kit/widgets/styles.css";
import { useState } from "react";
import { z } from "zod";

// shared/tools.ts — the same module the server imports
const Template = z.object({ id: z.string(), title: z.string() });
export const tools = {
  pickTemplate: defineClientTool({
    name: "pick_template",
    description: "Ask the person to choose a poster template.",
    inputSchema: z.object({ templates: z.array(Template) }),
    answerSchema: z.object({ templateId: z.string() }),
  }),
  refund: defineTool({
    name: "refund_charge",
    description: "Refund a charge.",
    inputSchema: z.object({ chargeId: z.string(), amount: z.number() }),
    approval: ({ input }) => input.amount > 1000,
  }),
};

// A custom picker: its props are typed from pick_template's definition.
function TemplatePicker({
  request,
  respond,
  status,
  resolution,
}: WidgetProps<{ templates: { id: string; title: string }[] }, { templateId: string }>) {
  if (resolution?.value) return <p data-state={status}>Template: {resolution.value.templateId}</p>;
  return (
    <fieldset data-state={status}>
      <legend>{request.prompt ?? "Choose a template"}</legend>
      {request.input.templates.map((template) => (
        <button
          key={template.id}
          type="button"
          disabled={status === "submitting"}
          onClick={() => respond({ templateId: template.id })}
        >
          {template.title}
        </button>
      ))}
    </fieldset>
  );
}

// Unregistered tools render a form generated from their answer schema.
const widgets = createWidgetRegistry<typeof tools>()
  .add("pick_template", TemplatePicker)
  .add("refund_charge", ApprovalCard);

export function Chat({ sessionId }: { sessionId?: string }) {
  const agent = useAgent({ url: "/api/agent", ...(sessionId ? { sessionId } : {}) });
  const [draft, setDraft] = useState("");
  return (
    <main>
      <div role="log" aria-live="polite">
        {agent.messages.map((message) => (
          <article key={message.id} data-role={message.role}>
            {message.parts.map((part, index) =>
              part.type === "text" ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow at the end
                <p key={index}>{part.text}</p>
              ) : part.type === "tool" && part.requestId ? (
                <ParkedRequest key={part.requestId} requestId={part.requestId} agent={agent} widgets={widgets} />
              ) : null,
            )}
          </article>
        ))}
      </div>
      {agent.error && <p role="alert">{agent.error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void agent.send(draft);
          setDraft("");
        }}
      >
        <input aria-label="Message" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button type="submit" disabled={agent.status === "streaming"}>
          Send
        </button>
      </form>
    </main>
  );
}

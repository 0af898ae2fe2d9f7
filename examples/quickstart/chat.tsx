import {
  busyButtonProps,
  createWidgetRegistry,
  plainErrorMessage,
  ToolCallPart,
  useAgent,
  WidgetFrame,
  type WidgetProps,
} from "@hitl-kit/react";
import { ApprovalCard } from "@hitl-kit/widgets";
import { useEffect, useState } from "react";
import type { tools } from "./tools.js";

/**
 * A custom picker: its props are typed from pick_template's definition, and are a union on
 * `status`: only a settled request has a `resolution`, only a refused answer an `error`.
 * `WidgetFrame` draws the rest as the default widgets do: the question, a status badge, a
 * refusal's message, the deadline, the outcome once settled, and focus that stays in the card.
 */
function TemplatePicker(props: WidgetProps<{ templates: { id: string; title: string }[] }, { templateId: string }>) {
  const { request, respond, status } = props;
  const title = (id: string) => request.input.templates.find((template) => template.id === id)?.title ?? id;
  // While the answer is on its way, the buttons say so (aria-disabled) and keep the focus.
  const busy = status === "submitting";
  return (
    <WidgetFrame
      {...props}
      summary={props.status === "resolved" ? <p>Template: {title(props.resolution.value.templateId)}</p> : undefined}
    >
      {/* hitl-button: the widgets' button, a 44 px target that looks busy while the answer is on its way. */}
      {request.input.templates.map((template) => (
        <button
          key={template.id}
          type="button"
          className="hitl-button"
          {...busyButtonProps(busy, () => respond({ templateId: template.id }))}
        >
          {template.title}
        </button>
      ))}
    </WidgetFrame>
  );
}

// A widget with the wrong props, or an unknown tool name, does not compile. Tools without
// a widget render a form generated from their answer schema.
const widgets = createWidgetRegistry<typeof tools>()
  .add("pick_template", TemplatePicker)
  .add("refund_charge", ApprovalCard);

/** The chat: pass the id of a session to continue it, or none to start one with the first message. */
export function Chat({ sessionId }: { sessionId?: string }) {
  // A message not sent yet is still there after a reload (no storage on a server, which sends nothing).
  // It is kept per tab, not per person: with a sign-in, call clearUnsentMessages(sessionStorage) on sign-out.
  const outboxStorage = globalThis.sessionStorage;
  const agent = useAgent({ url: "/api/agent", outboxStorage, ...(sessionId ? { sessionId } : {}) });
  const [draft, setDraft] = useState("");
  const streaming = agent.status === "streaming";
  // Keep the session in the URL once the first message has created it, so a reload continues it.
  useEffect(() => {
    if (agent.sessionId) history.replaceState(null, "", `#session=${agent.sessionId}`);
  }, [agent.sessionId]);
  return (
    <main>
      {/* A live region reads what joins it: shown once the history is in, a reload does not read it all out. */}
      {agent.hydrated && (
        <div role="log" aria-live="polite">
          {agent.messages.map((message) => (
            <article key={message.id} data-role={message.role}>
              <h2>{message.role === "user" ? "You" : "Assistant"}</h2>
              {message.parts.map((part, index) =>
                part.type === "text" ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow at the end
                  <p key={index}>{part.text}</p>
                ) : part.type === "tool" ? (
                  // A call's requests with their widgets (each one, if its tool asked twice), or a server tool's progress.
                  <ToolCallPart key={part.toolCallId} part={part} agent={agent} widgets={widgets} />
                ) : null,
              )}
            </article>
          ))}
        </div>
      )}
      {/* Your messages from the moment you send them until the server's stream shows them
          in the log: outside it, so each is read once. */}
      {agent.outbox.map((message) => (
        <article key={message.key} data-role="user" data-state={message.status}>
          <h2>You</h2>
          <p>{message.text}</p>
          {message.error && (
            <>
              <p role="alert">Not sent: {plainErrorMessage(message.error)}</p>
              <button type="button" onClick={() => void agent.send(message.text, { key: message.key })}>
                Send again
              </button>
            </>
          )}
        </article>
      ))}
      {agent.error && <p role="alert">{plainErrorMessage(agent.error)}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (streaming) return; // the server takes the next message once the reply is done
          void agent.send(draft);
          setDraft("");
        }}
      >
        <label>
          Message <input value={draft} onChange={(event) => setDraft(event.target.value)} />
        </label>
        {/* aria-disabled, not disabled: a disabled button drops the keyboard's focus to the page. */}
        <button type="submit" aria-disabled={streaming}>
          Send
        </button>
      </form>
    </main>
  );
}

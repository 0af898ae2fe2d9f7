import type { AgentClient } from "@hitl-kit/client";
import type { Message } from "@hitl-kit/protocol";
import { MessageText, ToolCallPart, type WidgetRegistry } from "@hitl-kit/react";
import { memo } from "react";

/** Props of {@link MessageItem}. */
export interface MessageItemProps {
  message: Message;
  /** The session's client, for the widgets of parked requests. */
  client: AgentClient;
  widgets: WidgetRegistry;
}

/**
 * One message of the transcript: text as text (never HTML, in blocks that keep their DOM
 * nodes while the message grows: see `MessageText`), reasoning folded away, and
 * each tool call in place through `<ToolCallPart>` — a call that asked the person renders
 * its widget, so an answered widget stays visible and shows what was chosen, and a
 * server tool's call shows running, done or failed.
 * It re-renders only when its message changes.
 */
export const MessageItem = memo(function MessageItem({ message, client, widgets }: MessageItemProps) {
  const author = message.role === "user" ? "You" : "Assistant";
  return (
    // Focusable from code (not by Tab): focus moves to the first message when "Show earlier messages" goes away.
    <article
      className="chat-message"
      data-role={message.role}
      data-state={message.status}
      aria-label={author}
      tabIndex={-1}
    >
      {message.role === "user" ? null : (
        <div className="chat-message__avatar" aria-hidden="true">
          AI
        </div>
      )}
      <div className="chat-message__body">
        {message.parts.map((part, index) => {
          const key = part.type === "tool" ? part.toolCallId : `${part.type}-${index}`;
          if (part.type === "text") {
            return (
              <MessageText
                className="chat-message__text"
                key={key}
                text={part.text}
                streaming={message.status === "streaming"}
              />
            );
          }
          if (part.type === "reasoning") {
            return (
              <details className="chat-reasoning" key={key}>
                <summary>Reasoning</summary>
                <p>{part.text}</p>
              </details>
            );
          }
          return (
            <div
              className={part.requestId ? "chat-message__widget" : "chat-message__tool"}
              key={key}
              data-tool={part.toolName}
            >
              <ToolCallPart part={part} agent={client} widgets={widgets} />
            </div>
          );
        })}
        {message.status === "streaming" ? <span className="chat-caret" aria-hidden="true" /> : null}
      </div>
    </article>
  );
});

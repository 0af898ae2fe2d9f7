import { useChat } from "@ai-sdk/react";
import { applyHitlSettlement, type HitlChatTransport, type HitlDataTypes, hitlAnswersComplete } from "@hitl-kit/ai-sdk";
import { HitlRequestPart } from "@hitl-kit/ai-sdk/react";
import { ValueView } from "@hitl-kit/react";
import { getToolName, isToolUIPart, type UIMessage } from "ai";
import { type FormEvent, type KeyboardEvent, useMemo, useState } from "react";
import { useRequestAnnouncement } from "../components/use-request-announcement.js";
import { chatWidgets } from "../widgets/chat-widgets.js";

/** The demo's messages: hitl-kit's request parts as typed data parts. */
export type ChatMessage = UIMessage<unknown, HitlDataTypes>;

/** Props of {@link UseChatPanel}. */
export interface UseChatPanelProps {
  id: string;
  messages: ChatMessage[];
  transport: HitlChatTransport<ChatMessage>;
}

/**
 * An ordinary `useChat` UI: messages, parts and a composer. Tool calls that wait for the
 * person render their registered widget through `<HitlRequestPart>`.
 */
export function UseChatPanel({ id, messages: initial, transport }: UseChatPanelProps) {
  const chat = useChat<ChatMessage>({
    id,
    messages: initial,
    transport,
    resume: true,
    sendAutomaticallyWhen: hitlAnswersComplete,
    // A message sent while a request was open cancelled it: its reply shows that.
    onData: (part) => chat.setMessages((messages) => applyHitlSettlement(messages, part)),
  });
  const [input, setInput] = useState("");
  const busy = chat.status === "submitted" || chat.status === "streaming";
  // A new request is announced once, by its question, as on the hitl-kit page: its widget is
  // not read by the log around it.
  const open = useMemo(
    () =>
      chat.messages.flatMap((message) =>
        message.parts.flatMap((part) =>
          part.type === "data-hitl-request" && part.data.state === "open" ? [part.data.request] : [],
        ),
      ),
    [chat.messages],
  );
  const announcement = useRequestAnnouncement(open);
  const send = (event: FormEvent | KeyboardEvent) => {
    event.preventDefault();
    if (input.trim() === "" || busy) return;
    void chat.sendMessage({ text: input });
    setInput("");
  };
  return (
    <main className="chat-panel" aria-label="Chat" data-status={chat.status}>
      <header className="chat-panel__header">
        <h1 className="chat-panel__title">Poster assistant · useChat</h1>
        <a className="chat-button" href="/">
          hitl-kit client
        </a>
      </header>
      {/* Read once a reply is whole, not again from its start at every delta. */}
      <div
        className="chat-transcript"
        role="log"
        aria-label="Conversation"
        aria-busy={chat.status === "streaming" || undefined}
      >
        <div className="chat-transcript__content">
          {chat.messages.map((message) => (
            <article
              key={message.id}
              className="chat-message"
              data-role={message.role}
              aria-label={message.role === "user" ? "You" : "Assistant"}
            >
              {message.role === "user" ? null : (
                <div className="chat-message__avatar" aria-hidden="true">
                  AI
                </div>
              )}
              <div className="chat-message__body">
                {message.parts.map((part, index) => {
                  if (part.type === "text") {
                    return (
                      // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end
                      <p className="chat-message__text" key={index}>
                        {part.text}
                      </p>
                    );
                  }
                  if (part.type === "data-hitl-request") {
                    return (
                      <div className="chat-message__widget" key={part.id} data-tool={part.data.request.toolName}>
                        <HitlRequestPart message={message} data={part.data} chat={chat} widgets={chatWidgets} />
                      </div>
                    );
                  }
                  if (
                    isToolUIPart(part) &&
                    !message.parts.some(
                      (p) => p.type === "data-hitl-request" && p.data.request.toolCallId === part.toolCallId,
                    )
                  ) {
                    return (
                      <details
                        className="chat-tool"
                        key={part.toolCallId}
                        data-state={part.state}
                        data-tool={getToolName(part)}
                      >
                        <summary>
                          <span className="chat-tool__icon" aria-hidden="true" />
                          <span className="chat-tool__name">{getToolName(part)}</span>
                          <span className="chat-tool__state">{part.state}</span>
                        </summary>
                        <div className="chat-tool__body">
                          <ValueView value={part.state === "output-available" ? part.output : part.input} />
                        </div>
                      </details>
                    );
                  }
                  return null;
                })}
              </div>
            </article>
          ))}
          {chat.error ? (
            <p className="chat-composer__error" role="alert">
              {chat.error.message}
            </p>
          ) : null}
        </div>
      </div>
      <p className="chat-visually-hidden" role="status">
        {announcement}
      </p>
      <form className="chat-composer" onSubmit={send}>
        <div className="chat-composer__box">
          <textarea
            className="chat-composer__input"
            aria-label="Message"
            value={input}
            rows={1}
            onChange={(event) => setInput(event.target.value)}
            onKeyDown={(event) => {
              // Enter sends, Shift+Enter is a new line, as in the hitl-kit client's composer.
              if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing && event.keyCode !== 229)
                send(event);
            }}
          />
          {busy ? (
            // useChat's stop() only stops reading; the transport stops the turn on the server,
            // and the stream shows it end. Unreachable server: stop reading at least.
            <button
              type="button"
              className="chat-button chat-button--stop"
              onClick={() => void transport.cancelTurn(id).catch(() => chat.stop())}
            >
              Stop
            </button>
          ) : (
            <button type="submit" className="chat-button chat-button--send">
              Send
            </button>
          )}
        </div>
      </form>
    </main>
  );
}

import { type OutgoingMessage, plainErrorMessage } from "@hitl-kit/client";
import { type AgentView, MessageText, useAgent, type WidgetRegistry } from "@hitl-kit/react";
import { type ReactNode, useLayoutEffect, useMemo, useState } from "react";
import { isReplying } from "./composer.js";
import { JumpToLatest } from "./jump-to-latest.js";
import { MessageItem } from "./message-item.js";
import { useKeepReadingPlace } from "./use-keep-reading-place.js";
import { useRequestAnnouncement } from "./use-request-announcement.js";
import { useStickToBottom } from "./use-stick-to-bottom.js";

/** Props of {@link Transcript}. */
export interface TranscriptProps {
  /** The session, as `useAgent()` returns it; read from `<AgentProvider>` when omitted. */
  agent?: AgentView;
  /** The widgets for parked requests; a tool without one gets the schema form. */
  widgets: WidgetRegistry;
  /** What shows before the first message. */
  empty?: ReactNode;
  /** Offers "Edit" on a message that could not be sent: it is discarded and its text handed here (for the composer). */
  onEdit?: (text: string) => void;
  /** Called after "Send again" (whose button goes with the message's failure), to move focus to the composer, say. */
  onResend?: () => void;
  className?: string;
}

/**
 * The conversation: every message with its widgets inline, the person's messages still on
 * their way (marked "Sending…" after a second until the server has them) or not sent (with "Send again", and "Edit"
 * when `onEdit` is given, else "Discard"), a typing indicator while the model has not
 * written yet, and a failed turn's error under the last message. It is a
 * `role="log"` region (named "Conversation") that keeps itself scrolled to the newest
 * message unless the person scrolled up (sending a message scrolls it down again), and
 * stops at the start of a new request so its question shows; while the person reads
 * above the end, a "Jump to latest" button says what arrived below. A new request is
 * announced by its question alone, once, through a `role="status"` beside the log (the
 * log does not read widgets: their frames are `aria-live="off"`).
 * `data-state` mirrors the session's status.
 * @example
 * <Transcript agent={useAgent({ url: "/api/agent", sessionId })} widgets={chatWidgets} />
 * // or, inside <AgentProvider>: <Transcript widgets={chatWidgets} />
 */
export function Transcript(props: TranscriptProps) {
  return props.agent ? <TranscriptView {...props} agent={props.agent} /> : <ProvidedTranscript {...props} />;
}

function ProvidedTranscript(props: TranscriptProps) {
  return <TranscriptView {...props} agent={useAgent()} />;
}

function TranscriptView({
  agent,
  widgets,
  empty,
  onEdit,
  onResend,
  className,
}: TranscriptProps & { agent: AgentView }) {
  const { scrollRef, contentRef, follow, jumpToLatest, place } = useStickToBottom<HTMLDivElement>();
  const holdPlace = useKeepReadingPlace(scrollRef, agent.messages[0]?.id);
  // Sending (the composer, a suggestion, "Send again") is a clear intent to follow: the newest
  // message on its way brings the bottom into view and sticks there again.
  const sending = agent.outbox.findLast((message) => message.status === "sending")?.key;
  useLayoutEffect(() => {
    if (sending !== undefined) follow();
  }, [sending, follow]);
  const last = agent.messages.at(-1);
  // A message still on its way says "Sending…" itself; once the server took it, the model is thinking.
  const thinking =
    (agent.status === "submitting" && !agent.outbox.some((message) => message.status === "sending")) ||
    (agent.status === "streaming" && (last?.role !== "assistant" || last.status !== "streaming"));
  // While a reply streams, the log waits to be read until the reply is whole: a screen reader
  // would otherwise read the growing paragraph again from its start at every delta.
  const replying = last?.role === "assistant" && last.status === "streaming";
  const turnError = agent.error?.source === "turn" ? agent.error : undefined;
  const open = useMemo(() => agent.pending.map((state) => state.request), [agent.pending]);
  const announcement = useRequestAnnouncement(open);
  return (
    <div className="chat-transcript-frame">
      <div
        ref={scrollRef}
        className={["chat-transcript", className].filter(Boolean).join(" ")}
        role="log"
        aria-live="polite"
        aria-label="Conversation"
        aria-busy={thinking || replying || undefined}
        data-state={agent.status}
      >
        <div ref={contentRef} className="chat-transcript__content">
          {agent.session.before === undefined ? null : <EarlierMessages agent={agent} beforeLoad={holdPlace} />}
          {agent.messages.length === 0 && agent.outbox.length === 0 && agent.hydrated && !thinking ? empty : null}
          {agent.messages.map((message) => (
            <MessageItem key={message.id} message={message} client={agent.client} widgets={widgets} />
          ))}
          {agent.outbox.map((message) => (
            <OutgoingItem key={message.key} message={message} agent={agent} onEdit={onEdit} onResend={onResend} />
          ))}
          {thinking ? (
            <p className="chat-thinking" role="status">
              <span className="chat-thinking__dots" aria-hidden="true">
                <span />
                <span />
                <span />
              </span>
              Thinking…
            </p>
          ) : null}
          {turnError ? (
            <div className="chat-turn-error" role="alert" data-code={turnError.code}>
              <p className="chat-turn-error__title">This reply failed</p>
              <p>{turnError.message}</p>
            </div>
          ) : null}
        </div>
      </div>
      <JumpToLatest
        place={place}
        waiting={agent.pending.length > 0}
        scrollRef={scrollRef}
        jumpToLatest={jumpToLatest}
      />
      <p className="chat-visually-hidden" role="status">
        {announcement}
      </p>
    </div>
  );
}

/** A message of the person's that the server has not shown yet: on its way, or not sent. */
function OutgoingItem({
  message,
  agent,
  onEdit,
  onResend,
}: {
  message: OutgoingMessage;
  agent: AgentView;
  onEdit: ((text: string) => void) | undefined;
  onResend: (() => void) | undefined;
}) {
  const { key, text, error } = message;
  return (
    <article className="chat-message" data-role="user" data-state={message.status} aria-label="You">
      <div className="chat-message__body">
        <MessageText className="chat-message__text" text={text} />
      </div>
      {error ? (
        <div className="chat-outgoing">
          {/* The alert is the reason alone: a screen reader announces it, not the buttons' labels too. */}
          <p className="chat-outgoing__error" role="alert">
            Not sent: {plainErrorMessage(error)}
          </p>
          <button
            type="button"
            className="chat-button"
            // One message at a time: while a reply runs, the server would refuse it.
            disabled={isReplying(agent)}
            onClick={() => {
              void agent.send(text, { key });
              onResend?.();
            }}
          >
            Send again
          </button>
          <button
            type="button"
            className="chat-button"
            onClick={() => {
              if (agent.discard(key)) onEdit?.(text);
            }}
          >
            {onEdit ? "Edit" : "Discard"}
          </button>
        </div>
      ) : message.status === "sending" ? (
        <p className="chat-outgoing chat-outgoing--sending">Sending…</p>
      ) : message.status === "checking" ? (
        // Kept from before a reload and older than the history shown: neither sent nor not sent yet.
        <p className="chat-outgoing chat-outgoing--checking">Checking whether it was sent…</p>
      ) : null}
    </article>
  );
}

/**
 * A long session opens at its newest messages; this loads the page before those shown.
 * `beforeLoad` runs first (to keep the reading place). While a page loads, the button keeps
 * focus and ignores presses.
 */
function EarlierMessages({ agent, beforeLoad }: { agent: AgentView; beforeLoad: () => void }) {
  const [state, setState] = useState<"ready" | "loading" | "failed">("ready");
  const load = async () => {
    if (state === "loading") return;
    beforeLoad();
    setState("loading");
    setState((await agent.loadEarlier()).ok ? "ready" : "failed");
  };
  return (
    <p className="chat-earlier">
      {/* aria-disabled, not disabled: a disabled button loses focus, and a keyboard user's next Enter would go nowhere. */}
      <button
        type="button"
        className="chat-button"
        aria-disabled={state === "loading" || undefined}
        onClick={() => void load()}
      >
        {state === "loading" ? "Loading…" : "Show earlier messages"}
      </button>
      {state === "failed" ? <span role="alert"> Could not load them; try again.</span> : null}
    </p>
  );
}

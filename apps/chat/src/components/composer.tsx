import { plainErrorMessage } from "@hitl-kit/client";
import type { AgentView } from "@hitl-kit/react";
import { type FormEvent, type KeyboardEvent, type Ref, useId } from "react";

/**
 * Whether a reply runs or a message is on its way (also while the stream reconnects): then
 * Stop takes Send's place, and a message not sent waits to be sent again.
 */
export function isReplying(agent: Pick<AgentView, "status" | "outbox" | "session">): boolean {
  return (
    agent.status === "streaming" ||
    agent.status === "submitting" ||
    agent.outbox.some((message) => message.status === "sending" || message.status === "accepted") ||
    (agent.status === "reconnecting" && agent.session.status === "running")
  );
}

/** Props of {@link Composer}. */
export interface ComposerProps {
  /** The session, as `useAgent()` returns it. */
  agent: Pick<AgentView, "status" | "error" | "send" | "cancelTurn" | "outbox" | "session" | "stopping">;
  /** The text in the box (kept by the parent, so a message not sent can come back to it for editing). */
  draft: string;
  onDraftChange: (text: string) => void;
  /** The text box, for the parent to move focus to it. */
  inputRef?: Ref<HTMLTextAreaElement>;
  /** Called after Stop, which turns into "Stopping…" and then Send, both disabled: to move focus to the text box, say. */
  onStop?: () => void;
  placeholder?: string;
}

/**
 * Where the person writes: a labelled text box ("Message"), Enter to send and
 * Shift+Enter for a new line, a Send button, and a Stop button instead while a turn runs
 * or a message is on its way (also while the stream reconnects); once clicked it reads
 * "Stopping…" until the turn has stopped.
 * Sending empties the box: the message shows in the transcript at once, and one that is
 * not sent (the server refuses a message while a turn runs, say) stays there, marked, to
 * send again or edit. A refused Stop shows its error next to the box.
 * `data-state` mirrors the session's status.
 * @example
 * const [draft, setDraft] = useState("");
 * <Composer agent={agent} draft={draft} onDraftChange={setDraft} />
 */
export function Composer({
  agent,
  draft: text,
  onDraftChange: setText,
  inputRef,
  onStop,
  placeholder = "Ask for a poster, a refund or the details form…",
}: ComposerProps) {
  const id = useId();
  const running = isReplying(agent);
  const canSend = text.trim() !== "" && agent.status !== "connecting";
  const refused = agent.error?.source === "cancelTurn" ? agent.error : undefined;

  function send() {
    if (!canSend) return;
    setText("");
    void agent.send(text.trim());
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    send();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Not the Enter that ends an input method's composition (Safari tells it by key code 229 only).
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    send();
  }

  return (
    <form className="chat-composer" aria-label="Send a message" data-state={agent.status} onSubmit={onSubmit}>
      {refused ? (
        <p className="chat-composer__error" role="alert" id={`${id}-error`}>
          Could not stop: {plainErrorMessage(refused)}
        </p>
      ) : null}
      <div className="chat-composer__box">
        <label className="chat-visually-hidden" htmlFor={`${id}-text`}>
          Message
        </label>
        <textarea
          id={`${id}-text`}
          ref={inputRef}
          className="chat-composer__input"
          rows={1}
          value={text}
          placeholder={placeholder}
          aria-describedby={refused ? `${id}-error ${id}-hint` : `${id}-hint`}
          onChange={(event) => setText(event.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
        {running ? (
          <button
            type="button"
            className="chat-button chat-button--stop"
            // Until the turn has stopped: a tool that does not stop at once holds it for a few seconds.
            disabled={agent.stopping}
            onClick={(event) => {
              // Stop takes Send's place: the second click of a double click on Send is no Stop
              // (a click, a tap or a key press that is not part of one stops at once).
              if (event.detail > 1) return;
              void agent.cancelTurn();
              onStop?.();
            }}
          >
            {agent.stopping ? "Stopping…" : "Stop"}
          </button>
        ) : (
          <button type="submit" className="chat-button chat-button--send" disabled={!canSend}>
            Send
          </button>
        )}
      </div>
      <p className="chat-composer__hint" id={`${id}-hint`}>
        Enter to send · Shift+Enter for a new line
      </p>
    </form>
  );
}

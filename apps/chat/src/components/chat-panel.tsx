import { type ApiClient, plainErrorMessage } from "@hitl-kit/client";
import { useAgent, type WidgetRegistry } from "@hitl-kit/react";
import { type ReactNode, useRef } from "react";
import { useKeptDraft } from "../session/use-kept-draft.js";
import { useSessionHistoryRefresh } from "../session/use-session-history-refresh.js";
import { Composer } from "./composer.js";
import { ConnectionStatus } from "./connection-status.js";
import { Transcript } from "./transcript.js";

/** Props of {@link ChatPanel}. */
export interface ChatPanelProps {
  /** The protocol client, for the session list this panel keeps fresh. */
  api: ApiClient;
  widgets: WidgetRegistry;
  /** Starts a new chat (offered when this one no longer exists). */
  onNew: () => void;
  /** Extra controls at the start of the header (the sessions toggle on narrow screens). */
  headerStart?: ReactNode;
  title?: string;
  /** A note above the transcript (why this chat was started in place of a bad link). */
  notice?: string;
  /** What an empty chat shows, given a function that moves focus to the composer (for buttons that go away once pressed). */
  empty?: (focusComposer: () => void) => ReactNode;
  /** Takes no focus and no clicks (behind the open chats drawer). */
  inert?: boolean;
}

/**
 * One session under `<AgentProvider>`: a header with the connection state, the
 * transcript and the composer. It refreshes the session history when the session's
 * status changes or a message is sent (`useSessionHistoryRefresh`).
 */
export function ChatPanel({ api, widgets, onNew, headerStart, title, notice, empty, inert }: ChatPanelProps) {
  const agent = useAgent();
  const [draft, setDraft] = useKeptDraft(agent.sessionId);
  const input = useRef<HTMLTextAreaElement>(null);
  // Buttons that go away once pressed (those of a message not sent, Stop, the welcome's
  // suggestions) would drop focus to the page: it moves to the text box.
  const focusInput = () => input.current?.focus();
  useSessionHistoryRefresh(api, agent);
  const missing = agent.error?.source === "connection" && agent.error.code === "not_found";

  return (
    <main className="chat-panel" aria-label="Chat" inert={inert}>
      <header className="chat-panel__header">
        {headerStart}
        <h1 className="chat-panel__title">{title ?? "New chat"}</h1>
        <ConnectionStatus agent={agent} />
      </header>
      {missing ? (
        <div className="chat-missing" role="alert">
          <p>This chat does not exist: it was deleted, or the link belongs to someone else's chat.</p>
          <button type="button" className="chat-button chat-button--send" onClick={onNew}>
            Start a new chat
          </button>
        </div>
      ) : (
        <>
          {notice ? (
            <p className="chat-banner" role="status">
              {notice}
            </p>
          ) : null}
          {agent.error?.source === "connection" ? (
            <p className="chat-banner" role="alert">
              {plainErrorMessage(agent.error)}
            </p>
          ) : null}
          <Transcript
            agent={agent}
            widgets={widgets}
            empty={empty?.(focusInput)}
            onEdit={(text) => {
              setDraft(text);
              focusInput();
            }}
            onResend={focusInput}
          />
          <Composer agent={agent} draft={draft} onDraftChange={setDraft} inputRef={input} onStop={focusInput} />
        </>
      )}
    </main>
  );
}

import { hitlChatTransport } from "@hitl-kit/ai-sdk";
import { useEffect, useState } from "react";
import { agentApi } from "../shared/endpoint.js";
import { type ChatMessage, UseChatPanel } from "./use-chat-panel.js";

/** The transport: the one line that differs from a `useChat` app on its own backend. */
export const transport = hitlChatTransport<ChatMessage>({ url: agentApi.url });

/** The chat id in the URL hash (`#chat=…`), made once per new chat, so a reload finds the chat again. */
function useChatId(): string {
  const [id] = useState(() => {
    const found = /chat=([^&]+)/.exec(window.location.hash)?.[1];
    if (found) return decodeURIComponent(found);
    const made = crypto.randomUUID();
    window.history.replaceState(null, "", `#chat=${made}`);
    return made;
  });
  return id;
}

/**
 * The poster flow through the AI SDK's `useChat`: the same server, tools and widgets as
 * the main demo, with `hitlChatTransport` as the chat's transport. The chat starts from
 * the server's history and resumes a reply that is still running or parked.
 */
export function UseChatPage() {
  const id = useChatId();
  const [messages, setMessages] = useState<ChatMessage[] | { error: string } | undefined>();
  useEffect(() => {
    let live = true;
    transport.loadMessages(id).then(
      (loaded) => live && setMessages(loaded),
      (error: unknown) => live && setMessages({ error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [id]);
  if (!messages || "error" in messages) {
    return (
      <main className="chat-panel chat-panel--starting" aria-label="Chat">
        <p role="status">{messages?.error ?? "Loading the chat…"}</p>
      </main>
    );
  }
  return <UseChatPanel id={id} messages={messages} transport={transport} />;
}

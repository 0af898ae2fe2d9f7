import { useAgent } from "@hitl-kit/react";

/** The messages the demo script knows, offered as one-click starts. */
export const suggestions = [
  { text: "Make a poster for the spring fair", hint: "template → shape → pictures → approval" },
  { text: "Refund 250", hint: "runs at once" },
  { text: "Refund 1500", hint: "over 1000: asks you first" },
  { text: "Details", hint: "a form with validation" },
];

/** Props of {@link Welcome}. */
export interface WelcomeProps {
  /** Called after a suggestion is sent (the welcome goes away with its buttons): to move focus to the composer, say. */
  onSend?: () => void;
}

/**
 * What an empty chat shows: a short introduction and suggestion buttons that send their
 * text. Renders inside `<AgentProvider>`.
 */
export function Welcome({ onSend }: WelcomeProps) {
  const send = useAgent((agent) => agent.send);
  return (
    <section className="chat-welcome" aria-labelledby="chat-welcome-title">
      <h2 id="chat-welcome-title">Put a person in the loop</h2>
      <p>
        When the assistant needs you — to pick, fill in or approve — the turn pauses on a widget right here in the chat,
        and picks up from your answer. Try one:
      </p>
      <ul className="chat-welcome__list">
        {suggestions.map((suggestion) => (
          <li key={suggestion.text}>
            <button
              type="button"
              className="chat-suggestion"
              onClick={() => {
                void send(suggestion.text);
                onSend?.();
              }}
            >
              <span className="chat-suggestion__text">{suggestion.text}</span>
              <span className="chat-suggestion__hint">{suggestion.hint}</span>
            </button>
          </li>
        ))}
      </ul>
      <p>
        Already on the AI SDK? <a href="/use-chat/">The same flow through useChat</a> runs on this server with{" "}
        <code>hitlChatTransport</code>.
      </p>
    </section>
  );
}

import { createAgentClient, type ReplayOptions, replayTransport, type Transport } from "@hitl-kit/client";
import type { ProtocolEvent } from "@hitl-kit/protocol";
import { AgentProvider, useAgent } from "@hitl-kit/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { ConnectionStatus, Transcript } from "../../../apps/chat/src/components/index.js";
import { chatWidgets } from "../../../apps/chat/src/widgets/chat-widgets.js";
import "../../../apps/chat/src/chat-panel.css";
import "../../../apps/chat/src/chat-parts.css";

/** Props of {@link ReplayedChat}. */
export interface ReplayedChatProps {
  /** A recording from `npm run record-fixtures`. */
  events: readonly unknown[];
  /** Release the events up to this seq (default: all of them). */
  playedTo?: number;
  /** Answers commands instead of the replay's default `202` (throw to act out a refusal). */
  answer?: ReplayOptions["answer"];
  /** Act out a dropped stream: the client sees its connection reconnecting. */
  reconnecting?: boolean;
  /** A message the person sends as the story opens (its fate is `answer`'s). */
  send?: string;
}

/** A replay that reports its stream as reconnecting once the events are delivered. */
function reconnectingTransport(replay: Transport): Transport {
  return {
    ...replay,
    openStream(sessionId, options) {
      const close = replay.openStream(sessionId, options);
      options.sink.connection("reconnecting");
      return close;
    },
  };
}

function Header() {
  const agent = useAgent();
  return (
    <header className="chat-story__header">
      <ConnectionStatus agent={agent} />
    </header>
  );
}

/**
 * The demo's transcript, driven by a recorded event stream through `replayTransport` —
 * no server — so every HITL state can be previewed and tested as the app renders it.
 */
export function ReplayedChat({ events, playedTo, answer, reconnecting, send }: ReplayedChatProps) {
  const [setup] = useState(() => {
    const recorded = events as ProtocolEvent[];
    const replay = replayTransport(recorded, { playedTo: playedTo ?? recorded.length, ...(answer ? { answer } : {}) });
    const transport = reconnecting ? reconnectingTransport(replay) : replay;
    const client = createAgentClient({ transport, sessionId: replay.sessionId });
    if (send !== undefined) void client.send(send);
    return { client, queries: new QueryClient() };
  });
  return (
    <QueryClientProvider client={setup.queries}>
      <AgentProvider client={setup.client}>
        <div className="chat-story">
          <Header />
          <Transcript widgets={chatWidgets} />
        </div>
      </AgentProvider>
    </QueryClientProvider>
  );
}

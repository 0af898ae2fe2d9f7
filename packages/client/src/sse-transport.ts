import { createApiClient } from "./api-client.js";
import type { ApiClient, ApiClientOptions } from "./api-types.js";
import type { Transport } from "./transport.js";

/** Options of {@link sseTransport}: those of an {@link ApiClient}, or one to share. */
export type SseTransportOptions = ApiClientOptions | { api: ApiClient };

/**
 * The default transport: the {@link ApiClient}'s commands (JSON `POST`s) and its event
 * stream read with `fetch`, which reconnects with exponential backoff and `Last-Event-ID`
 * when it drops.
 * @example
 * const client = createAgentClient({ transport: sseTransport({ url: "/api/agent", headers: () => auth() }) });
 */
export function sseTransport(options: SseTransportOptions): Transport {
  const api = "api" in options ? options.api : createApiClient(options);
  return {
    createSession: (creation) => api.createSession(creation),
    loadSnapshot: (sessionId, page = {}) => api.getSnapshot(sessionId, page),
    findTakenMessages: (sessionId, keys) => api.findTakenMessages(sessionId, keys),
    async send(sessionId, command, { signal } = {}) {
      const call = signal ? { signal } : {};
      switch (command.type) {
        case "message": {
          const { turnId, repeated } = await api.sendMessage(sessionId, command.text, {
            ...call,
            ...(command.key === undefined ? {} : { key: command.key }),
          });
          return { status: repeated ? 200 : 202, body: { turnId } };
        }
        case "responses": {
          const { status, resolutions } = await api.respond(sessionId, command.responses, call);
          return { status, body: { resolutions } };
        }
        case "cancel":
          await api.cancelTurn(sessionId, {
            ...call,
            ...(command.turnId === undefined ? {} : { turnId: command.turnId }),
          });
          return { status: 202, body: {} };
        default:
          await api.deleteSession(sessionId, call);
          return { status: 204, body: undefined };
      }
    },
    openStream: (sessionId, streamOptions) => api.openStream(sessionId, streamOptions),
  };
}

import type { CancelBody, CreateSessionBody, RespondBody, SendMessageBody } from "./command-bodies.js";
import { checkWire } from "./decode-wire.js";
import { commandJsonSchemas } from "./wire-json-schemas.generated.js";

/** The body of each command, by the name of its route. */
export interface CommandBodies {
  /** `POST /sessions` */
  createSession: CreateSessionBody;
  /** `POST /sessions/:id/messages` */
  message: SendMessageBody;
  /** `POST /sessions/:id/responses` */
  responses: RespondBody;
  /** `POST /sessions/:id/cancel` */
  cancel: CancelBody;
}

/**
 * Checks a command's parsed JSON body against protocol v1; a message's text comes back
 * trimmed. Servers call it on every command.
 * @throws {ProtocolError} `bad_request`, naming each problem, with the issues as details
 */
export function parseCommandBody<K extends keyof CommandBodies>(command: K, value: unknown): CommandBodies[K] {
  const body = checkWire<CommandBodies[K]>(commandJsonSchemas[command], value, "a request body");
  if (command === "message") {
    const { text } = body as SendMessageBody;
    return { ...body, text: text.trim() } as CommandBodies[K];
  }
  return body;
}

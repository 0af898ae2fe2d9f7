import { describe, expectTypeOf, it } from "vitest";
import type * as z from "zod/mini";
import type * as wire from "../scripts/wire-zod-schemas.js";
import type {
  CreateSessionBody,
  ErrorBody,
  EventInput,
  InputRequest,
  InputResponse,
  Message,
  ProtocolEvent,
  RespondBody,
  SendMessageBody,
  SessionSnapshot,
  ToolPart,
} from "../src/index.js";

// The exported wire types are written out so that no zod reaches a user's types; these
// prove each is exactly what the zod/mini definitions (the source of the JSON Schemas
// every peer decodes with) infer.
describe("the wire types", () => {
  it("equal the types the zod/mini wire schemas infer", () => {
    expectTypeOf<ProtocolEvent>().toEqualTypeOf<z.infer<typeof wire.ProtocolEvent>>();
    expectTypeOf<InputRequest>().toEqualTypeOf<z.infer<typeof wire.InputRequest>>();
    expectTypeOf<ToolPart>().toEqualTypeOf<z.infer<typeof wire.ToolPart>>();
    expectTypeOf<Message>().toEqualTypeOf<z.infer<typeof wire.Message>>();
    expectTypeOf<SessionSnapshot>().toEqualTypeOf<z.infer<typeof wire.SessionSnapshot>>();
    expectTypeOf<InputResponse>().toEqualTypeOf<z.infer<typeof wire.InputResponse>>();
    expectTypeOf<RespondBody>().toEqualTypeOf<z.infer<typeof wire.RespondBody>>();
    expectTypeOf<SendMessageBody>().toEqualTypeOf<z.infer<typeof wire.SendMessageBody>>();
    expectTypeOf<CreateSessionBody>().toEqualTypeOf<z.infer<typeof wire.CreateSessionBody>>();
    expectTypeOf<ErrorBody>().toEqualTypeOf<z.infer<typeof wire.ErrorBody>>();
  });

  it("leave the envelope out of what a store appends", () => {
    expectTypeOf<EventInput>().toEqualTypeOf<
      z.infer<typeof wire.ProtocolEvent> extends infer E
        ? E extends unknown
          ? Omit<E, "seq" | "sessionId" | "at">
          : never
        : never
    >();
  });
});

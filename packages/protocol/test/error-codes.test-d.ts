import { describe, expectTypeOf, it } from "vitest";
import {
  type ClientErrorCode,
  ERROR_CODES,
  type ErrorCode,
  ProtocolError,
  type ServerErrorCode,
} from "../src/index.js";

describe("ERROR_CODES, the one list of error codes", () => {
  it("splits into the codes a server sends and the ones only a client reports", () => {
    expectTypeOf<ClientErrorCode>().toEqualTypeOf<"network" | "aborted" | "bad_response" | "client_outdated">();
    expectTypeOf<ServerErrorCode>().toExtend<ErrorCode>();
    expectTypeOf<"turn_running" | "already_resolved" | "session_limit">().toExtend<ServerErrorCode>();
    expectTypeOf(ERROR_CODES.already_resolved.status).toEqualTypeOf<409>();
  });

  it("lets a ProtocolError be thrown only with a listed code", () => {
    new ProtocolError("turn_running", "A turn is running.");
    // @ts-expect-error `conflict` is no code: the conflicts are already_resolved, session_limit and turn_running
    new ProtocolError("conflict", "Taken.");
    // A code read from a newer server's answer is still a code the error may carry.
    expectTypeOf<ProtocolError["code"]>().toExtend<string>();
    expectTypeOf<"quota_exceeded">().toExtend<ProtocolError["code"]>();
  });
});

import type { ToolAnswer, ToolInput, ToolName, ToolNamed, ToolSet } from "@hitl-kit/protocol";

/**
 * A hitl-kit tool set as the AI SDK's `UITools`, for `UIMessage<Metadata, HitlDataTypes,
 * HitlUITools<typeof tools>>`: each tool part (`tool-<name>`) gets its input from the tool's
 * input schema, and its output is a client tool's answer — what `addToolOutput` gives and
 * the server checks — or `unknown` for a server tool (what its implementation returns, which
 * the browser does not import). The AI SDK's `InferUITools` reads `tool()` objects, not
 * these definitions.
 * @example
 * type Message = UIMessage<unknown, HitlDataTypes, HitlUITools<typeof tools>>;
 * const chat = useChat<Message>({ transport: hitlChatTransport<Message>({ url: "/api/agent" }) });
 */
export type HitlUITools<Tools extends ToolSet> = {
  [Name in ToolName<Tools>]: {
    input: ToolInput<Tools, Name>;
    output: ToolNamed<Tools, Name>["kind"] extends "client" ? ToolAnswer<Tools, Name> : unknown;
  };
};

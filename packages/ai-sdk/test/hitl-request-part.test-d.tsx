import type { UseChatHelpers } from "@ai-sdk/react";
import type { UIMessage } from "ai";
import type { ComponentProps } from "react";
import { expectTypeOf, it } from "vitest";
import type { HitlDataTypes } from "../src/index.js";
import type { HitlRequestPart } from "../src/react/index.js";

type Tools = { pick_template: { input: { templates: string[] }; output: { templateId: string } } };

it("takes the helpers of a chat whose tool parts are typed, as useChat gives them", () => {
  type Chat = ComponentProps<typeof HitlRequestPart>["chat"];
  expectTypeOf<UseChatHelpers<UIMessage<unknown, HitlDataTypes, Tools>>>().toExtend<Chat>();
  expectTypeOf<UseChatHelpers<UIMessage<unknown, HitlDataTypes>>>().toExtend<Chat>();
});

import { afterEach, describe, expect, it } from "vitest";
import { startFakeAnthropic } from "../../../packages/server/test/providers/fake-anthropic.js";
import { startFakeOpenAI } from "../../../packages/server/test/providers/fake-openai.js";
import type { FakeProvider } from "../../../packages/server/test/providers/fake-reply.js";
import { readChatConfig } from "../server/chat-config.js";
import { ConfigError, modelFromEnv } from "../server/model-from-env.js";
import { startChat, unansweredCalls } from "./chat-harness.js";

let fake: FakeProvider | undefined;
let chat: ReturnType<typeof startChat> | undefined;
afterEach(async () => {
  await chat?.close();
  await fake?.close();
  chat = undefined;
  fake = undefined;
});

describe("modelFromEnv", () => {
  it("runs the scripted model by default", () => {
    expect(modelFromEnv({}).label).toBe("scripted");
    expect(modelFromEnv({ HITL_MODEL: " " }).model.modelId).toBe("scripted");
  });

  it("takes the delay between the script's words from HITL_SCRIPTED_DELAY_MS, refusing one that is not a number", () => {
    expect(modelFromEnv({ HITL_SCRIPTED_DELAY_MS: "150" }).label).toBe("scripted");
    expect(() => modelFromEnv({ HITL_SCRIPTED_DELAY_MS: "slow" })).toThrow(
      /HITL_SCRIPTED_DELAY_MS must be a whole number/,
    );
  });

  it("names the missing key", () => {
    expect(() => modelFromEnv({ HITL_MODEL: "anthropic:claude-x" })).toThrow(ConfigError);
    expect(() => modelFromEnv({ HITL_MODEL: "anthropic:claude-x" })).toThrow(/needs ANTHROPIC_API_KEY/);
    expect(() => modelFromEnv({ HITL_MODEL: "openai:gpt-x", OPENAI_API_KEY: "" })).toThrow(/needs OPENAI_API_KEY/);
  });

  it("refuses an unknown provider and a missing model id", () => {
    expect(() => modelFromEnv({ HITL_MODEL: "llama" })).toThrow(
      /use scripted, anthropic:<model id> or openai:<model id>/,
    );
    expect(() => modelFromEnv({ HITL_MODEL: "anthropic:", ANTHROPIC_API_KEY: "k" })).toThrow(/needs a model id/);
  });

  it("reads the server settings, refusing a port that is not a number", () => {
    const config = readChatConfig({ HITL_EXPIRE_AFTER_MS: "5000" });
    expect(config).toMatchObject({ port: 3000, host: "127.0.0.1", expireAfterMs: 5000 });
    expect(config.dataDir).toMatch(/apps\/chat\/\.data$/);
    expect(readChatConfig({}).expireAfterMs).toBeUndefined();
    expect(() => readChatConfig({ PORT: "http" })).toThrow(/PORT must be a whole number/);
  });

  const providers = [
    {
      name: "anthropic",
      start: startFakeAnthropic,
      env: (url: string) => ({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: url }),
    },
    {
      name: "openai",
      start: startFakeOpenAI,
      env: (url: string) => ({ OPENAI_API_KEY: "test", OPENAI_BASE_URL: url }),
    },
  ];

  it.each(providers)("runs the demo's tools on $name:<id> at its base URL", async ({ name, start, env }) => {
    fake = await start({
      replies: [
        { text: "Pick one.", toolCalls: [{ name: "pick_media", input: { max: 2 } }] },
        { text: "Published your poster." },
      ],
    });
    const model = modelFromEnv({ HITL_MODEL: `${name}:model-test`, ...env(fake.baseURL) });
    expect(model.label).toBe(`${name}:model-test`);
    chat = startChat({ model });
    const id = await chat.session();
    await chat.send(id, "make me a poster");
    expect(await chat.openTool(id)).toBe("pick_media");
    await chat.answer(id, { action: "accept", value: { mediaIds: ["city"] } });

    expect(fake.requests.map((request) => request.status)).toEqual([200, 200]);
    const body = JSON.stringify(fake.requests[1]?.body);
    expect(body).toContain("publish_poster"); // the demo's tools are offered
    expect(body).toContain("/media/city.svg"); // the resolved media went back to the model
    expect(await chat.lastReply(id)).toBe("Published your poster.");
    expect(unansweredCalls(await chat.events(id))).toEqual([]);
  });
});

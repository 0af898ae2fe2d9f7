import { afterEach, describe, expect, it, vi } from "vitest";
import { demoScript, posterTitle } from "../server/demo-script.js";
import { startChat, unansweredCalls } from "./chat-harness.js";

let chat: ReturnType<typeof startChat>;
afterEach(() => chat?.close());

describe("the demo script, through the real runtime", () => {
  it("makes a poster: template, ratio, pictures, approval, then “Published …”", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "make a poster for the spring fair");
    expect(await chat.openTool(id)).toBe("pick_template");
    const [templateRequest] = (await chat.snapshot(id)).pending;
    expect((templateRequest!.input as { templates: unknown[] }).templates).toHaveLength(4);

    await chat.answer(id, { action: "accept", value: { templateId: "retro" } });
    expect(await chat.openTool(id)).toBe("pick_aspect_ratio");
    await chat.answer(id, { action: "accept", value: { ratio: "4:5" } });
    expect(await chat.openTool(id)).toBe("pick_media");
    await chat.answer(id, { action: "accept", value: { mediaIds: ["mountains", "aurora"] } });

    const mediaResult = (await chat.events(id)).findLast((e) => e.type === "tool.result");
    expect(mediaResult).toMatchObject({
      outcome: "ok",
      output: {
        media: [
          { id: "mountains", src: "/media/mountains.svg" },
          { id: "aurora", label: "Aurora" },
        ],
      },
    });
    const [publish] = (await chat.snapshot(id)).pending;
    expect(publish).toMatchObject({
      toolName: "publish_poster",
      kind: "approval",
      prompt: "Publish “Spring fair”?",
      input: { title: "Spring fair", templateId: "retro", ratio: "4:5", mediaIds: ["mountains", "aurora"] },
    });

    await chat.answer(id, { action: "accept", value: {} });
    expect(await chat.lastReply(id)).toMatch(/^Published “Spring fair” — it's live at \/posters\/poster_/);
    expect((await chat.snapshot(id)).status).toBe("idle");
    expect(unansweredCalls(await chat.events(id))).toEqual([]);
  });

  it("ends the poster when the person declines midway, and says how to start again", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "poster please");
    await chat.answer(id, { action: "accept", value: { templateId: "bold" } });
    await chat.answer(id, { action: "decline" });
    expect(await chat.lastReply(id)).toBe("No shape, no poster — say “poster” to start again.");
    expect((await chat.snapshot(id)).pending).toEqual([]);
    expect(unansweredCalls(await chat.events(id))).toEqual([]);
  });

  it("quotes the reason when publishing is denied", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "poster");
    await chat.answer(id, { action: "accept", value: { templateId: "calm" } });
    await chat.answer(id, { action: "accept", value: { ratio: "1:1" } });
    await chat.answer(id, { action: "accept", value: { mediaIds: ["ocean"] } });
    await chat.answer(id, { action: "decline", reason: "wrong colours" });
    expect(await chat.lastReply(id)).toBe(
      "Okay, I didn't publish it (you said: “wrong colours”) — say “poster” to start again.",
    );
  });

  it("refunds 1000 or less at once", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "refund 250");
    expect((await chat.snapshot(id)).pending).toEqual([]);
    const result = (await chat.events(id)).find((e) => e.type === "tool.result");
    expect(result).toMatchObject({ outcome: "ok", output: { chargeId: "ch_demo_1042", amount: 250 } });
    expect(await chat.lastReply(id)).toMatch(/^Refunded 250\.00 on ch_demo_1042 \(refund re_/);
  });

  it("asks before refunding over 1000, and refunds once approved", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "refund 1500");
    const [request] = (await chat.snapshot(id)).pending;
    expect(request).toMatchObject({
      toolName: "refund_charge",
      kind: "approval",
      prompt: "Refund 1500.00 on ch_demo_1042?",
    });
    await chat.answer(id, { action: "accept", value: { reason: "double charge" } });
    expect(await chat.lastReply(id)).toMatch(/^Refunded 1500\.00 on ch_demo_1042/);
  });

  it("refunds nothing when the approval is denied", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "refund 2000");
    await chat.answer(id, { action: "decline" });
    expect(await chat.lastReply(id)).toBe(
      "Okay, no refund — the charge is untouched — say “refund 1500” to try again.",
    );
  });

  it("collects details with a form, refusing an answer that does not fit", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "details");
    const [request] = (await chat.snapshot(id)).pending;
    expect(request).toMatchObject({ toolName: "collect_details", prompt: "A few details for your booking" });
    expect(Object.keys((request!.answerSchema as { properties: object }).properties)).toEqual([
      "name",
      "email",
      "date",
      "plan",
      "seats",
      "newsletter",
      "notes",
    ]);
    const answer = {
      name: "Ada",
      email: "ada@example.com",
      date: "2026-05-01",
      plan: "team",
      seats: 12,
      newsletter: true,
    };
    const refused = chat.answer(id, { action: "accept", value: { ...answer, email: "ada@", seats: 900 } });
    await expect(refused).rejects.toMatchObject({ code: "invalid_answer", status: 422 });
    expect(await chat.openTool(id)).toBe("collect_details");

    await chat.answer(id, { action: "accept", value: answer });
    expect(await chat.lastReply(id)).toBe(
      "Thanks, Ada — team plan for 12 seats on 2026-05-01. I'll write to ada@example.com, and you're on the newsletter.",
    );
  });

  it("answers anything else with what to try", async () => {
    chat = startChat();
    const id = await chat.session();
    await chat.send(id, "hello there");
    const reply = await chat.lastReply(id);
    expect(reply).toContain("poster");
    expect(reply).toContain("refund 250");
    expect(reply).toContain("details");
  });

  it("says so when a request expires", async () => {
    chat = startChat({ expireAfterMs: 50 });
    const id = await chat.session();
    await chat.send(id, "poster");
    await new Promise((resolve) => setTimeout(resolve, 150));
    await chat.snapshot(id); // reads settle expired requests
    await chat.app.runtime.idle();
    expect(await chat.lastReply(id)).toBe(
      "That question expired before anyone answered, so I stopped — say “poster” to start again.",
    );
  });

  it("books a table through the bookings MCP server, whose elicitation the person answers", async () => {
    chat = startChat();
    const id = await chat.session();
    // The tool runs while it waits for the person, so the turn is not idle: wait for the request.
    await chat.api.sendMessage(id, "book a table");
    await vi.waitFor(async () => expect(await chat.openTool(id)).toBe("book_table"));
    const [request] = (await chat.snapshot(id)).pending;
    expect(request).toMatchObject({ kind: "input", prompt: "How many seats at Nora, and on which day?" });
    const refused = chat.api.respond(id, [
      { requestId: request!.requestId, action: "accept", value: { seats: 0, date: "2026-12-24" } },
    ]);
    await expect(refused).rejects.toMatchObject({ code: "invalid_answer", status: 422 });
    await chat.answer(id, { action: "accept", value: { seats: 4, date: "2026-12-24" } });
    expect(await chat.lastReply(id)).toBe("Booked 4 seats at Nora on 2026-12-24.");

    await chat.api.sendMessage(id, "book again");
    await vi.waitFor(async () => expect(await chat.openTool(id)).toBe("book_table"));
    await chat.answer(id, { action: "decline" });
    expect(await chat.lastReply(id)).toBe("No table booked (declined) — say “book a table” to try again.");
    expect(unansweredCalls(await chat.events(id))).toEqual([]);
  });

  it("does not invite a second refund when the server stopped while the refund ran", () => {
    const output = "The server running this tool stopped before it finished; the tool may or may not have completed.";
    const reply = demoScript({
      prompt: [],
      step: 1,
      lastUserText: "refund 1500",
      lastResults: [{ toolName: "refund_charge", output, type: "error-text" }],
    });
    expect(reply.text).toBe(`${output} Check whether it happened before you ask again.`);
  });

  it("titles posters from the message", () => {
    expect(posterTitle("Make a poster for the spring fair!")).toBe("Spring fair");
    expect(posterTitle("poster about an Open day")).toBe("Open day");
    expect(posterTitle("poster")).toBe("Untitled poster");
  });
});

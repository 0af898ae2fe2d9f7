import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkOneResultPerCall, startServer } from "./harness.js";
import { lastToolResults, recordingModel } from "./recording-model.js";
import { executions } from "./tools.js";

type Server = ReturnType<typeof startServer>;
let server: Server;
afterEach(() => server?.close());
beforeEach(() => {
  executions.length = 0;
});

const pick = { toolName: "pick_template", input: { templates: ["bold", "calm"] } };

describe("a parked client tool", () => {
  it("parks the turn, then resumes it from the person's answer with one result", async () => {
    const { model, prompts } = recordingModel([{ text: "Pick one.", toolCalls: [pick] }, { text: "Nice choice." }]);
    server = startServer(model);
    const id = await server.session();
    expect((await server.call("POST", `/sessions/${id}/messages`, { text: "poster please" })).status).toBe(202);
    await server.runtime.idle();

    const parked = await server.snapshot(id);
    expect(parked.status).toBe("waiting");
    expect(parked.pending).toHaveLength(1);
    const request = parked.pending[0]!;
    expect(request).toMatchObject({ toolName: "pick_template", kind: "input", prompt: "Choose a template" });
    expect(request.answerSchema).toMatchObject({ type: "object", required: ["templateId"] });

    const answer = { requestId: request.requestId, action: "accept", value: { templateId: "calm" } };
    const response = await server.call("POST", `/sessions/${id}/responses`, { responses: [answer] });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 202,
      body: { resolutions: [{ requestId: request.requestId, action: "accept", value: { templateId: "calm" } }] },
    });
    await server.runtime.idle();

    const done = await server.snapshot(id);
    expect(done.status).toBe("idle");
    expect(done.pending).toEqual([]);
    expect(done.messages.at(-1)?.parts).toEqual([{ type: "text", text: "Nice choice." }]);
    expect(lastToolResults(prompts[1])).toEqual([
      expect.objectContaining({ toolName: "pick_template", output: { type: "json", value: { templateId: "calm" } } }),
    ]);
    expect(checkOneResultPerCall(await server.events(id))).toEqual([]);
  });

  it("answers the same response twice with the first resolution, and a different one with 409", async () => {
    server = startServer(recordingModel([{ toolCalls: [pick] }, { text: "ok" }]).model);
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    const answer = { requestId: request!.requestId, action: "accept", value: { templateId: "bold" } };

    expect((await server.call("POST", `/sessions/${id}/responses`, { responses: [answer] })).status).toBe(202);
    await server.runtime.idle();
    const before = await server.events(id);

    const again = await server.call("POST", `/sessions/${id}/responses`, { responses: [answer] });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { resolutions: [{ ...answer }] } });
    const other = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ ...answer, value: { templateId: "calm" } }],
    });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: "already_resolved", details: { resolution: answer } });
    expect(await server.events(id)).toEqual(before);
  });

  it("refuses an answer that fails the schema with 422 and keeps the request open", async () => {
    server = startServer(recordingModel([{ toolCalls: [pick] }, { text: "ok" }]).model);
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    const before = await server.events(id);

    const bad = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { templateId: 7 } }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("invalid_answer");
    expect(bad.body.error.details).toEqual([{ path: ["templateId"], message: expect.any(String) }]);
    const missing = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept" }],
    });
    expect(missing.status).toBe(422);
    expect(await server.events(id)).toEqual(before);
    expect((await server.snapshot(id)).pending).toHaveLength(1);
  });

  it("turns a client tool's answer into the result through its server-side resolve", async () => {
    const { model, prompts } = recordingModel([
      { toolCalls: [{ toolName: "pick_media", input: { folder: "posters" } }] },
      { text: "Got them." },
    ]);
    server = startServer(model);
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "media" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "accept", value: { mediaIds: ["a", "b"] } }],
    });
    await server.runtime.idle();
    const result = (await server.events(id)).find((event) => event.type === "tool.result");
    expect(result).toMatchObject({
      outcome: "ok",
      output: {
        media: [
          { id: "a", url: "/m/a.png" },
          { id: "b", url: "/m/b.png" },
        ],
      },
    });
    expect(lastToolResults(prompts[1])[0]).toMatchObject({
      output: { type: "json", value: { media: expect.any(Array) } },
    });
  });

  it("settles a decline with the reason and lets the model continue", async () => {
    const { model, prompts } = recordingModel([{ toolCalls: [pick] }, { text: "Fine, no template." }]);
    server = startServer(model);
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "go" });
    await server.runtime.idle();
    const [request] = (await server.snapshot(id)).pending;
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: request!.requestId, action: "decline", reason: "none fit" }],
    });
    await server.runtime.idle();
    const events = await server.events(id);
    expect(events.find((event) => event.type === "tool.result")).toMatchObject({
      outcome: "declined",
      output: { reason: "none fit" },
    });
    expect(lastToolResults(prompts[1])[0]).toMatchObject({
      output: { type: "execution-denied", reason: "The person declined, saying: none fit" },
    });
    expect((await server.snapshot(id)).status).toBe("idle");
  });

  it("answers an unknown request or session with 404 and changes nothing", async () => {
    server = startServer(recordingModel([{ text: "hi" }]).model);
    const id = await server.session();
    const before = await server.events(id);
    const unknown = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: "req_nope", action: "cancel" }],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    expect((await server.call("GET", "/sessions/ses_nope")).status).toBe(404);
    expect((await server.call("POST", "/sessions/ses_nope/messages", { text: "x" })).status).toBe(404);
    expect((await server.call("GET", "/sessions/ses_nope/events")).status).toBe(404);
    expect(await server.events(id)).toEqual(before);
  });
});

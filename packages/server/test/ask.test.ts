import { getEventListeners } from "node:events";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { defineTool } from "@hitl-kit/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type AskResult, createAgentRuntime, implement } from "../src/index.js";
import { sqliteStore } from "../src/store/sqlite-store.js";
import { checkOneResultPerCall, quiet, startServer, tempDir } from "./harness.js";
import { lastToolResults, recordingModel } from "./recording-model.js";
import { pickTemplate } from "./tools.js";

const book = defineTool({
  name: "book_table",
  description: "Book a table; asks the person how many seats.",
  inputSchema: z.object({ restaurant: z.string() }),
});

/** What the tool heard from each question, in order. */
let heard: AskResult<unknown>[] = [];
/** The run (`ctx.attempt`) of each start of the tool, in order. */
let attempts: number[] = [];
const booking = (
  options: {
    questions?: number;
    expireAfter?: number;
    rerun?: boolean;
    firstSchema?: z.ZodType;
    secondSchema?: z.ZodType;
  } = {},
) =>
  implement(
    book,
    async ({ restaurant }, ctx) => {
      attempts.push(ctx.attempt);
      for (let index = 0; index < (options.questions ?? 1); index++) {
        const answer = await ctx.ask({
          prompt: index === 0 ? `How many seats at ${restaurant}?` : "Which time?",
          schema:
            index === 0
              ? (options.firstSchema ?? z.object({ seats: z.number().int().min(1).max(12) }))
              : (options.secondSchema ?? z.object({ time: z.string() })),
          ...(options.expireAfter === undefined ? {} : { expireAfter: options.expireAfter }),
        });
        heard.push(answer);
        if (answer.action !== "accept") return { booked: false, because: answer.action };
      }
      return { booked: true };
    },
    { rerunAfterRestart: options.rerun ?? false },
  );

const script = [{ toolCalls: [{ toolName: "book_table", input: { restaurant: "Nora" } }] }, { text: "Done." }];

let server: ReturnType<typeof startServer> | undefined;
const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  heard = [];
  attempts = [];
  for (const dir of dirs.splice(0)) dir.cleanup();
});

/** Starts a turn whose tool asks, and waits until the question is open. */
async function asking(options: Parameters<typeof booking>[0] = {}) {
  const started = await startAsking(options);
  return { ...started, pending: await openQuestion(started.id) };
}

async function startAsking(options: Parameters<typeof booking>[0] = {}) {
  const recording = recordingModel(script);
  server = startServer(recording.model, { tools: [booking(options)] });
  const id = await server.session();
  await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
  return { id, prompts: recording.prompts };
}

/** The question open in the session other than `earlier`, once the runtime asked it. */
async function askedAnew(runtime: ReturnType<typeof createAgentRuntime>, sessionId: string, earlier: string) {
  return vi.waitFor(async () => {
    const asked = (await runtime.getSnapshot(sessionId)).pending.find((request) => request.requestId !== earlier);
    expect(asked).toBeDefined();
    return asked!;
  });
}

/** A runtime on the SQLite file at `path`, as one process of the server. */
function serverProcess(path: string, tool: ReturnType<typeof booking>, model = recordingModel(script).model) {
  const store = sqliteStore(path);
  const runtime = createAgentRuntime({ model, tools: [tool], store, logger: quiet });
  return { store, runtime };
}

/** A SQLite file in a directory removed after the test. */
function sqliteFile() {
  const dir = tempDir();
  dirs.push(dir);
  return join(dir.path, "ask.sqlite");
}

/** The one request open in the session, once there is one. */
async function pendingOf(runtime: ReturnType<typeof createAgentRuntime>, sessionId: string) {
  let pending: Awaited<ReturnType<typeof runtime.getSnapshot>>["pending"] = [];
  await vi.waitFor(async () => {
    pending = (await runtime.getSnapshot(sessionId)).pending;
    expect(pending).toHaveLength(1);
  });
  return pending[0]!;
}

/** A session on a new process whose tool asks twice: the first question answered (4 seats), the second open. */
async function askedTwice(path: string) {
  const first = serverProcess(path, booking({ questions: 2, rerun: true }));
  const { sessionId } = await first.runtime.createSession();
  await first.runtime.sendMessage(sessionId, "book Nora");
  const seats = await pendingOf(first.runtime, sessionId);
  await first.runtime.respond(sessionId, [{ requestId: seats.requestId, action: "accept", value: { seats: 4 } }]);
  await vi.waitFor(async () => expect((await pendingOf(first.runtime, sessionId)).prompt).toBe("Which time?"));
  return { first, sessionId, seats, time: await pendingOf(first.runtime, sessionId) };
}

async function openQuestion(id: string, count = 1) {
  let pending: Awaited<ReturnType<NonNullable<typeof server>["snapshot"]>>["pending"] = [];
  await vi.waitFor(async () => {
    pending = (await server!.snapshot(id)).pending;
    expect(pending).toHaveLength(1);
    expect((await server!.events(id)).filter((event) => event.type === "input.requested")).toHaveLength(count);
  });
  return pending[0]!;
}

describe("a server tool that asks while it runs (ctx.ask)", () => {
  it("parks the question as a request, hands the checked answer to the tool, and the call gets its one result", async () => {
    const { id, pending, prompts } = await asking();
    expect(pending).toMatchObject({ toolName: "book_table", kind: "input", prompt: "How many seats at Nora?" });
    expect(pending.answerSchema).toMatchObject({ type: "object", properties: { seats: { type: "integer" } } });
    const snapshot = await server!.snapshot(id);
    expect(snapshot.status).toBe("running");

    const answered = await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 4 } }],
    });
    expect(answered.status).toBe(202);
    await server!.runtime.idle();
    expect(heard).toEqual([{ action: "accept", value: { seats: 4 } }]);
    const events = await server!.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok", output: { booked: true } },
    ]);
    expect(lastToolResults(prompts[1])).toMatchObject([{ output: { type: "json", value: { booked: true } } }]);
    expect((await server!.snapshot(id)).status).toBe("idle");
  });

  it("idle() resolves while the tool waits for its answer, as for a parked turn, and once the answered turn is done", async () => {
    const recording = recordingModel(script);
    server = startServer(recording.model, { tools: [booking({ questions: 2 })] });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    await server.runtime.idle();
    const [first] = (await server.snapshot(id)).pending;
    expect(first).toMatchObject({ toolName: "book_table", prompt: "How many seats at Nora?" });
    // A list shows the session waiting for the person, though its turn runs.
    expect((await server.call("GET", "/sessions")).body.sessions).toMatchObject([{ status: "running", pending: 1 }]);
    expect(await server.runtime.getSessionInfo(id)).toMatchObject({ status: "running", pending: 1 });
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: first!.requestId, action: "accept", value: { seats: 2 } }],
    });
    await server.runtime.idle();
    const [second] = (await server.snapshot(id)).pending;
    expect(second).toMatchObject({ prompt: "Which time?" });
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: second!.requestId, action: "accept", value: { time: "19:00" } }],
    });
    await server.runtime.idle();
    expect(await server.snapshot(id)).toMatchObject({ status: "idle", pending: [] });
    expect((await server.events(id)).at(-1)).toMatchObject({ type: "turn.completed" });
  });

  it("refuses an answer that fails the tool's schema with 422 and keeps the question open", async () => {
    const { id, pending } = await asking();
    const refused = await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 40 } }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("invalid_answer");
    expect((await server!.snapshot(id)).pending.map((request) => request.requestId)).toEqual([pending.requestId]);
    expect(heard).toEqual([]);
    await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 2 } }],
    });
    await server!.runtime.idle();
    expect(heard).toEqual([{ action: "accept", value: { seats: 2 } }]);
  });

  it("asks again in the same call, one request per question", async () => {
    const { id, pending } = await asking({ questions: 2 });
    await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 3 } }],
    });
    const second = await openQuestion(id, 2);
    expect(second.prompt).toBe("Which time?");
    expect(second.toolCallId).toBe(pending.toolCallId);
    await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: second.requestId, action: "accept", value: { time: "19:30" } }],
    });
    await server!.runtime.idle();
    expect(heard).toEqual([
      { action: "accept", value: { seats: 3 } },
      { action: "accept", value: { time: "19:30" } },
    ]);
    expect(checkOneResultPerCall(await server!.events(id))).toEqual([]);
    // A reload shows both questions with their answers: the call's part lists the first.
    const snapshot = await server!.snapshot(id);
    const part = snapshot.messages.flatMap((message) => message.parts).find((each) => each.type === "tool");
    expect(part).toMatchObject({ asked: [pending.requestId], requestId: second.requestId, state: "done" });
    expect(snapshot.resolved?.map((settled) => [settled.request.requestId, settled.resolution.value])).toEqual([
      [pending.requestId, { seats: 3 }],
      [second.requestId, { time: "19:30" }],
    ]);
  });

  it("cancels a question its tool left open by failing, saying the tool failed", async () => {
    let timeOut = () => {};
    const timedOut = new Promise<void>((resolve) => {
      timeOut = resolve;
    });
    // As an MCP call whose request timed out while its elicitation waited for the person.
    const givesUp = implement(book, async (_input, ctx) => {
      void ctx.ask({ prompt: "How many seats?", schema: z.object({ seats: z.number() }) }).catch(() => {});
      await timedOut;
      throw new Error("MCP error -32001: Request timed out");
    });
    server = startServer(recordingModel(script).model, { tools: [givesUp] });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    await openQuestion(id);
    timeOut();
    const events = await vi.waitFor(async () => {
      const all = await server!.events(id);
      expect(all.some((event) => event.type === "tool.result")).toBe(true);
      return all;
    });
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      {
        action: "cancel",
        reason: "The tool stopped with an error before this was answered.",
        reasonCode: "tool_failed",
      },
    ]);
    expect(checkOneResultPerCall(events)).toEqual([]);
  });

  it("lists a session whose approved tool waits on its question as running, as its snapshot says", async () => {
    const approved = defineTool({ ...book, approval: () => true });
    const asks = implement(approved, async (_input, ctx) => {
      const seats = await ctx.ask({ prompt: "How many seats?", schema: z.object({ seats: z.number() }) });
      return { seats: seats.action === "accept" ? seats.value.seats : 0 };
    });
    server = startServer(recordingModel(script).model, { tools: [asks] });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    await server.runtime.idle();
    const [approval] = (await server.snapshot(id)).pending;
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: approval!.requestId, action: "accept" }],
    });
    const question = await vi.waitFor(async () => {
      const [open] = (await server!.snapshot(id)).pending;
      expect(open?.prompt).toBe("How many seats?");
      return open!;
    });
    expect((await server.snapshot(id)).status).toBe("running");
    expect((await server.call("GET", "/sessions")).body.sessions).toMatchObject([
      { sessionId: id, status: "running", pending: 1 },
    ]);
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: question.requestId, action: "accept", value: { seats: 2 } }],
    });
    await server.runtime.idle();
  });

  it("tells the tool of a decline, and of an expiry", async () => {
    const declined = await asking();
    await server!.call("POST", `/sessions/${declined.id}/responses`, {
      responses: [{ requestId: declined.pending.requestId, action: "decline", reason: "not tonight" }],
    });
    await server!.runtime.idle();
    expect(heard).toEqual([{ action: "decline", reason: "not tonight" }]);
    await server!.close();
    server = undefined;
    heard = [];

    // The question may expire before anyone looks at it: no waiting for it to be open.
    const expiring = await startAsking({ expireAfter: 50 });
    await vi.waitFor(() => expect(heard).toEqual([{ action: "expire" }]));
    await server!.runtime.idle();
    const events = await server!.events(expiring.id);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([{ action: "expire" }]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok", output: { booked: false, because: "expire" } },
    ]);
  });

  it("withdraws the question when the asker's signal aborts: cancelled with the reason, and the tool goes on", async () => {
    const withdrawn = implement(book, async (_input, ctx) => {
      const answer = await ctx.ask({
        prompt: "How many seats?",
        schema: z.object({ seats: z.number() }),
        signal: AbortSignal.abort(new Error("The MCP connection closed.")),
      });
      heard.push(answer);
      return { booked: false };
    });
    server = startServer(recordingModel(script).model, { tools: [withdrawn] });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    await vi.waitFor(() => expect(heard).toEqual([{ action: "cancel", reason: "The MCP connection closed." }]));
    await server.runtime.idle();
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { action: "cancel", reason: "The MCP connection closed." },
    ]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok", output: { booked: false } },
    ]);
    expect((await server.snapshot(id)).pending).toEqual([]);
  });

  it("withdraws an open question when the signal aborts later; an answer after that is refused as settled", async () => {
    const asker = new AbortController();
    const withdrawn = implement(book, async (_input, ctx) => {
      const answer = await ctx.ask({
        prompt: "How many seats?",
        schema: z.object({ seats: z.number() }),
        signal: asker.signal,
      });
      heard.push(answer);
      return { booked: false };
    });
    server = startServer(recordingModel(script).model, { tools: [withdrawn] });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    const pending = await openQuestion(id);
    asker.abort("The MCP server cancelled its request.");
    await vi.waitFor(() =>
      expect(heard).toEqual([{ action: "cancel", reason: "The MCP server cancelled its request." }]),
    );
    await server.runtime.idle();
    const late = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 2 } }],
    });
    expect(late.status).toBe(409);
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toHaveLength(1);
  });

  it("says a question asked with ctx.signal closed because the person stopped the turn; the tool reads why from ctx.signal", async () => {
    let seen: unknown;
    const asker = implement(book, async (_input, ctx) => {
      try {
        await ctx.ask({ prompt: "How many seats?", schema: z.object({ seats: z.number() }), signal: ctx.signal });
      } finally {
        seen = ctx.signal.reason;
      }
      return { booked: true };
    });
    server = startServer(recordingModel(script).model, { tools: [asker] });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    await openQuestion(id);
    expect((await server.call("POST", `/sessions/${id}/cancel`, {})).status).toBe(202);
    await server.runtime.idle();
    expect(seen).toMatchObject({ name: "AbortError", message: "The person stopped the turn." });
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { action: "cancel", reason: "The person stopped the turn.", reasonCode: "stopped" },
    ]);

    seen = undefined;
    const other = await server.session();
    await server.call("POST", `/sessions/${other}/messages`, { text: "book Nora" });
    await openQuestion(other);
    expect((await server.call("DELETE", `/sessions/${other}`)).status).toBeLessThan(300);
    expect(seen).toMatchObject({ name: "AbortError", message: "The session was deleted." });
  });

  it("closes a question asked without ctx.signal, by a tool that ends when stopped, saying what stopped the turn", async () => {
    const stopsWhenAsked = implement(book, async (_input, ctx) => {
      const stopped = new Promise<{ booked: false }>((resolve) =>
        ctx.signal.addEventListener("abort", () => resolve({ booked: false }), { once: true }),
      );
      return Promise.race([ctx.ask({ prompt: "How many seats?", schema: z.object({ seats: z.number() }) }), stopped]);
    });
    server = startServer(recordingModel([...script, ...script]).model, { tools: [stopsWhenAsked] });
    const closed = async (stop: (id: string) => Promise<unknown>) => {
      const id = await server!.session();
      const resolved: unknown[] = [];
      server!.runtime.subscribe(id, (event) => {
        if (event.type === "input.resolved") resolved.push({ action: event.action, reason: event.reason });
      });
      await server!.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
      await openQuestion(id);
      await stop(id);
      await server!.runtime.idle();
      return resolved;
    };
    expect(await closed((id) => server!.call("POST", `/sessions/${id}/cancel`, {}))).toEqual([
      { action: "cancel", reason: "The person stopped the turn." },
    ]);
    expect(await closed((id) => server!.call("DELETE", `/sessions/${id}`))).toEqual([
      { action: "cancel", reason: "The session was deleted." },
    ]);
  });

  it("settles the question as accepted when it is answered elsewhere; a value that does not fit leaves it open", async () => {
    const warnings: unknown[][] = [];
    let answerElsewhere: (answer: { value: unknown; reason?: string }) => void = () => {};
    let rounds = 0;
    const paid = implement(book, async (_input, ctx) => {
      for (;;) {
        const answer = await ctx.ask({
          prompt: "Pay the deposit at the link.",
          schema: z.object({ paid: z.literal(true) }),
          answeredElsewhere: new Promise((resolve) => {
            answerElsewhere = resolve as typeof answerElsewhere;
            rounds += 1;
          }),
        });
        heard.push(answer);
        if (answer.action === "accept") return { booked: true };
      }
    });
    server = startServer(recordingModel(script).model, {
      tools: [paid],
      logger: { warn: (...args: unknown[]) => warnings.push(args), error: () => {} },
    });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    const pending = await openQuestion(id);
    expect(rounds).toBe(1);

    answerElsewhere({ value: { paid: "yes" } });
    await vi.waitFor(() =>
      expect(String(warnings.at(-1)?.[0])).toMatch(
        new RegExp(
          `^hitl-kit: session ${id} turn turn_[\\w-]+ call ${pending.toolCallId} \\(book_table\\): could not settle the question ${pending.requestId} \\(accept\\): ProtocolError \\(code invalid_answer\\): `,
        ),
      ),
    );
    expect((await server.snapshot(id)).pending.map((request) => request.requestId)).toEqual([pending.requestId]);
    await server.runtime.idle(); // the question still waits for the person

    // A second question of the same call: answered elsewhere with a fitting value.
    const decline = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "decline" }],
    });
    expect(decline.status).toBe(202);
    const second = await openQuestion(id, 2);
    answerElsewhere({ value: { paid: true }, reason: "The payment provider confirmed it." });
    await server.runtime.idle();
    expect(heard).toEqual([
      { action: "decline" },
      { action: "accept", value: { paid: true }, reason: "The payment provider confirmed it." },
    ]);
    const events = await server.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: pending.requestId, action: "decline" },
      { requestId: second.requestId, action: "accept", value: { paid: true } },
    ]);
    // The person's answer after that is refused: the question is settled once.
    const late = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: second.requestId, action: "decline" }],
    });
    expect(late.status).toBe(409);
  });

  it("lets go of the asker's signal and promise once a question settles, though they live on", async () => {
    // One shutdown signal for every question, and a webhook's promise that never comes.
    const shutdown = new AbortController();
    const never = new Promise<{ value: { seats: number } }>(() => {});
    // Collected schemas, by round (not WeakRefs: a deref keeps its target until the job ends).
    const collected: number[] = [];
    const watch = new FinalizationRegistry<number>((round) => collected.push(round));
    let asked = 0;
    const asker = implement(book, async (_input, ctx) => {
      const schema = z.object({ seats: z.number() });
      watch.register(schema, ++asked);
      const answer = await ctx.ask({ schema, signal: shutdown.signal, answeredElsewhere: never });
      heard.push(answer);
      return { booked: answer.action === "accept" };
    });
    server = startServer(recordingModel([...script, ...script, ...script]).model, { tools: [asker] });
    const id = await server.session();
    for (let round = 1; round <= 3; round++) {
      await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
      const pending = await openQuestion(id, round);
      await server.call("POST", `/sessions/${id}/responses`, {
        responses: [{ requestId: pending.requestId, action: "accept", value: { seats: round } }],
      });
      await server.runtime.idle();
    }
    expect(heard).toHaveLength(3);
    expect(getEventListeners(shutdown.signal, "abort")).toHaveLength(0);
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    await vi.waitFor(() => {
      gc();
      expect(collected.sort()).toEqual([1, 2, 3]);
    });
  });

  it("settles the question and the call once when the person stops the turn, the tool's own way", async () => {
    const { id, pending } = await asking();
    expect((await server!.call("POST", `/sessions/${id}/cancel`, {})).status).toBeLessThan(300);
    await server!.runtime.idle();
    const events = await server!.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    // The tool hears its question cancelled, and its branch for that gives the call its result.
    expect(heard).toEqual([{ action: "cancel", reason: "The person stopped the turn." }]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok", output: { booked: false, because: "cancel" } },
    ]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: pending.requestId, action: "cancel" },
    ]);
    expect(events.at(-1)?.type).toBe("turn.cancelled");
    // The answer comes too late: the request is settled, and the answer is refused as such.
    const late = await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 2 } }],
    });
    expect(late.status).toBe(409);
  });

  it("stops the turn for a message sent instead of an answer, saying so, then runs the message", async () => {
    const { id, pending, prompts } = await asking();
    expect((await server!.call("POST", `/sessions/${id}/messages`, { text: "never mind" })).status).toBe(202);
    await server!.runtime.idle();
    const why = "The person sent a new message instead of answering.";
    const events = await server!.events(id);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: pending.requestId, action: "cancel", reason: why },
    ]);
    // The tool hears the question cancelled, saying why, and ends with its own result.
    expect(heard).toEqual([{ action: "cancel", reason: why }]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "ok", output: { booked: false, because: "cancel" } },
    ]);
    expect(events.filter((event) => event.type.startsWith("turn."))).toMatchObject([
      { type: "turn.started" },
      { type: "turn.cancelled" },
      { type: "turn.started", cause: "message" },
      { type: "turn.completed" },
    ]);
    // The next model call reads the call's result, then the message.
    expect(prompts[1]!.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(lastToolResults(prompts[1]!)[0]).toMatchObject({ output: { value: { booked: false, because: "cancel" } } });
    const late = await server!.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 2 } }],
    });
    expect(late.status).toBe(409);
  });

  it("refuses that message with 409 when the runtime rejects messages while requests wait, and keeps the question", async () => {
    server = startServer(recordingModel(script).model, { tools: [booking()], whileParked: "reject" });
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    const pending = await openQuestion(id);
    const refused = await server.call("POST", `/sessions/${id}/messages`, { text: "never mind" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "turn_running",
      message: expect.stringMatching(/waiting for an answer/),
    });
    expect((await server.snapshot(id)).pending).toEqual([pending]);
    await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: pending.requestId, action: "accept", value: { seats: 2 } }],
    });
    await server.runtime.idle();
    expect(heard).toEqual([{ action: "accept", value: { seats: 2 } }]);
  });

  it("while the runtime closes, still takes the answer a running tool waits on, and starts no turn", async () => {
    const recording = recordingModel((context) =>
      context.lastResults.length > 0
        ? { text: "Done." }
        : context.lastUserText === "pick"
          ? { toolCalls: [{ toolName: "pick_template", input: { templates: ["a", "b"] } }] }
          : script[0]!,
    );
    server = startServer(recording.model, { tools: [booking(), pickTemplate] });
    const parked = await server.session();
    await server.call("POST", `/sessions/${parked}/messages`, { text: "pick" });
    await server.runtime.idle();
    const [picker] = (await server.snapshot(parked)).pending;
    const idle = await server.session();
    const id = await server.session();
    await server.call("POST", `/sessions/${id}/messages`, { text: "book Nora" });
    const question = await openQuestion(id);
    const closed = server.runtime.close();

    const message = await server.call("POST", `/sessions/${idle}/messages`, { text: "hello" });
    expect([message.status, message.body.error.code]).toEqual([503, "unavailable"]);
    const resumes = await server.call("POST", `/sessions/${parked}/responses`, {
      responses: [{ requestId: picker!.requestId, action: "accept", value: { templateId: "a" } }],
    });
    expect([resumes.status, resumes.body.error.code]).toEqual([503, "unavailable"]);
    const answered = await server.call("POST", `/sessions/${id}/responses`, {
      responses: [{ requestId: question.requestId, action: "accept", value: { seats: 4 } }],
    });
    expect(answered.status).toBe(202);
    await closed;
    expect(heard).toEqual([{ action: "accept", value: { seats: 4 } }]);
    const events = await server.store.readEvents(id, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.at(-1)?.type).toBe("turn.completed");
    // Nothing changed in the other two: the picker waits for its answer, the idle session for a message.
    expect((await server.store.getOpenRequests(parked)).map((request) => request.requestId)).toEqual([
      picker!.requestId,
    ]);
    expect((await server.store.getSession(idle))?.status).toBe("idle");
  });

  it.each([
    ["crashes", ""],
    ["closes", ""],
    ["crashes", ", and comes back with rerunAfterRestart on (not for a call started without it)"],
  ] as const)(
    "when the process %s while the tool waits%s, leaves the question to the next start, which cancels it and gives the call its one error result",
    async (how, rerunNext) => {
      const path = sqliteFile();
      const first = serverProcess(path, booking());
      const { sessionId } = await first.runtime.createSession();
      await first.runtime.sendMessage(sessionId, "book Nora");
      await pendingOf(first.runtime, sessionId);
      // Past the close's wait for answers, the runtime leaves the turn: the tool's ask throws,
      // not as the person's cancel, and nothing is written. A crash leaves it the same way.
      if (how === "closes") await first.runtime.close({ timeoutMs: 100 });
      await first.store.close();
      expect(heard).toEqual([]);

      const second = serverProcess(
        path,
        booking({ rerun: rerunNext !== "" }),
        recordingModel([script[0]!, { text: "The booking may not have gone through." }]).model,
      );
      await second.runtime.ready;
      await second.runtime.idle();
      const events = await second.runtime.readEvents(sessionId, 0);
      expect(checkOneResultPerCall(events)).toEqual([]);
      expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
        {
          action: "cancel",
          reason: "The server running the tool stopped while the tool waited for this answer.",
          reasonCode: "server_stopped",
        },
      ]);
      expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
        { outcome: "error", output: { message: expect.stringMatching(/stopped before it finished/) } },
      ]);
      const snapshot = await second.runtime.getSnapshot(sessionId);
      expect(snapshot.pending).toEqual([]);
      expect(snapshot.status).toBe("idle");
      expect(heard).toEqual([]);
      await second.runtime.close();
      await second.store.close();
    },
  );
});

describe("a tool run again after a restart (rerunAfterRestart)", () => {
  it.each(["crashes", "closes"] as const)(
    "keeps the open question when the process %s, hands the next run the earlier answer, and the call gets one result",
    async (how) => {
      const path = sqliteFile();
      const { first, sessionId, seats, time } = await askedTwice(path);
      // The process stops here: nothing of the first runtime runs again, and its file is let go.
      // A close does not wait for the person (a minute here, past the test's own limit): the
      // question outlives the restart, so the turn is left at once.
      if (how === "closes") await first.runtime.close({ timeoutMs: 60_000 });
      await first.store.close();

      const recording = recordingModel([script[0]!, { text: "Booked." }]);
      const second = serverProcess(path, booking({ questions: 2, rerun: true }), recording.model);
      await second.runtime.ready;
      await second.runtime.idle();
      // The same question, still open, answered once; the seats answered before are heard again.
      expect((await second.runtime.getSnapshot(sessionId)).pending).toEqual([time]);
      await second.runtime.respond(sessionId, [
        { requestId: time.requestId, action: "accept", value: { time: "19:30" } },
      ]);
      await second.runtime.idle();
      expect(attempts).toEqual([1, 2]);
      expect(heard).toEqual([
        { action: "accept", value: { seats: 4 } },
        { action: "accept", value: { seats: 4 } },
        { action: "accept", value: { time: "19:30" } },
      ]);
      const events = await second.runtime.readEvents(sessionId, 0);
      expect(checkOneResultPerCall(events)).toEqual([]);
      expect(events.filter((event) => event.type === "input.requested")).toHaveLength(2);
      expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
        { requestId: seats.requestId, action: "accept" },
        { requestId: time.requestId, action: "accept" },
      ]);
      expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
        { outcome: "ok", output: { booked: true } },
      ]);
      expect((await second.runtime.getSnapshot(sessionId)).status).toBe("idle");
      await second.runtime.close();
      await second.store.close();
    },
  );

  it("asks again a question whose schema changed since the earlier run, cancelling the open one; keeps an answer that fits", async () => {
    const path = sqliteFile();
    const { first, sessionId, seats, time } = await askedTwice(path);
    await first.store.close();

    // A deploy widened the seats (the answer 4 still fits) and changed what the time question takes.
    const changed = booking({
      questions: 2,
      rerun: true,
      firstSchema: z.object({ seats: z.number().int().min(1).max(20) }),
      secondSchema: z.object({ at: z.string() }),
    });
    const second = serverProcess(path, changed, recordingModel([script[0]!, { text: "Booked." }]).model);
    await second.runtime.ready;
    const asked = await askedAnew(second.runtime, sessionId, time.requestId);
    expect(asked.answerSchema).toMatchObject({ required: ["at"] });
    await second.runtime.respond(sessionId, [{ requestId: asked.requestId, action: "accept", value: { at: "20:00" } }]);
    await second.runtime.idle();
    expect(heard).toEqual([
      { action: "accept", value: { seats: 4 } },
      { action: "accept", value: { seats: 4 } },
      { action: "accept", value: { at: "20:00" } },
    ]);
    const events = await second.runtime.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: seats.requestId, action: "accept" },
      { requestId: time.requestId, action: "cancel", reason: expect.stringMatching(/changed .* asked again/) },
      { requestId: asked.requestId, action: "accept" },
    ]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "ok" }]);
    await second.runtime.close();
    await second.store.close();
  });

  it("asks again an answered question whose answer does not fit its new schema, and keeps its id after another restart", async () => {
    const path = sqliteFile();
    const { first, sessionId, seats, time } = await askedTwice(path);
    await first.store.close();

    // Now at least 6 seats: the earlier answer, 4, no longer fits (a refinement would do the same).
    const stricter = () => booking({ questions: 2, rerun: true, firstSchema: z.object({ seats: z.number().min(6) }) });
    const second = serverProcess(path, stricter());
    await second.runtime.ready;
    // The time question the earlier run asked stays open beside it: the new run reaches it next.
    const again = await askedAnew(second.runtime, sessionId, time.requestId);
    expect(again.requestId).not.toBe(seats.requestId);
    expect(again.prompt).toBe("How many seats at Nora?");
    await second.runtime.close();
    await second.store.close();

    const third = serverProcess(path, stricter(), recordingModel([script[0]!, { text: "Booked." }]).model);
    await third.runtime.ready;
    await third.runtime.idle();
    expect((await third.runtime.getSnapshot(sessionId)).pending.map((request) => request.requestId)).toEqual([
      time.requestId,
      again.requestId,
    ]);
    await third.runtime.respond(sessionId, [{ requestId: again.requestId, action: "accept", value: { seats: 6 } }]);
    await third.runtime.respond(sessionId, [{ requestId: time.requestId, action: "accept", value: { time: "19:00" } }]);
    await third.runtime.idle();
    const events = await third.runtime.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ outcome: "ok" }]);
    expect(heard.at(-2)).toEqual({ action: "accept", value: { seats: 6 } });
    await third.runtime.close();
    await third.store.close();
  });

  /**
   * A session whose rerunnable tool asks, through `stops` restarts of its process (each a
   * crash, or a close), on one SQLite file: the runtime that runs after the last, the session
   * and the question.
   */
  async function restarted(stops: ("crash" | "close")[], reply: string) {
    const path = sqliteFile();
    let current = serverProcess(path, booking({ rerun: true }));
    const { sessionId } = await current.runtime.createSession();
    await current.runtime.sendMessage(sessionId, "book Nora");
    const seats = await pendingOf(current.runtime, sessionId);
    for (const stop of stops) {
      if (stop === "close") await current.runtime.close();
      await current.store.close();
      current = serverProcess(path, booking({ rerun: true }), recordingModel([script[0]!, { text: reply }]).model);
      await current.runtime.ready;
      await current.runtime.idle();
    }
    return { current, sessionId, seats };
  }

  it("counts no run a deploy ended against that limit: a question outlives any number of graceful restarts", async () => {
    const { current, sessionId, seats } = await restarted(["close", "close", "close", "close"], "Booked.");
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    expect((await current.runtime.getSnapshot(sessionId)).pending).toEqual([seats]);
    await current.runtime.respond(sessionId, [{ requestId: seats.requestId, action: "accept", value: { seats: 2 } }]);
    await current.runtime.idle();
    const events = await current.runtime.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([{ output: { booked: true } }]);
    await current.runtime.close();
    await current.store.close();
  });

  it("runs a call at most three times cut off by a crash: after the third it gets the error result any cut-off call gets", async () => {
    const { current, sessionId, seats } = await restarted(["crash", "crash", "crash"], "It may not be booked.");
    expect(attempts).toEqual([1, 2, 3]);
    const events = await current.runtime.readEvents(sessionId, 0);
    expect(checkOneResultPerCall(events)).toEqual([]);
    expect(events.filter((event) => event.type === "input.resolved")).toMatchObject([
      { requestId: seats.requestId, action: "cancel" },
    ]);
    expect(events.filter((event) => event.type === "tool.result")).toMatchObject([
      { outcome: "error", output: { message: expect.stringMatching(/may or may not have completed/) } },
    ]);
    await current.runtime.close();
    await current.store.close();
  });
});

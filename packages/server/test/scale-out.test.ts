import { type ChildProcess, spawn } from "node:child_process";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { join } from "node:path";
import { eventFrameDecoder, type ProtocolEvent, type SessionSnapshot } from "@hitl-kit/protocol";
import { EventSourceParserStream } from "eventsource-parser/stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/store/postgres-store.js";
import { bundledEntry } from "./bundled-entry.js";
import { checkOneResultPerCall } from "./harness.js";
import { type PostgresCluster, postgresAvailable, startPostgres } from "./postgres-cluster.js";
import { startFakeAnthropic } from "./providers/fake-anthropic.js";
import { startFakeOpenAI } from "./providers/fake-openai.js";
import type { FakeProvider, FakeReply } from "./providers/fake-reply.js";

/**
 * Three server instances (child processes) on one Postgres database, behind a round-robin
 * proxy: sessions run park/answer/cancel cycles with their requests and SSE streams landing
 * on any instance, while one instance is SIGKILLed mid-run and started again.
 */
const SESSIONS = Number(process.env.HITL_SCALE_SESSIONS ?? "50");
const CYCLES = 3;
const LEASE_MS = 1000;

let cluster: PostgresCluster | undefined;
let database = "";
let anthropic: FakeProvider;
let openai: FakeProvider;

if (postgresAvailable) {
  beforeAll(async () => {
    cluster = await startPostgres();
    database = await cluster.createDatabase();
    anthropic = await startFakeAnthropic({ replies: (body) => replyTo(body) });
    openai = await startFakeOpenAI({ replies: () => ({ text: "ok" }) });
  }, 60_000);
  afterAll(async () => {
    await anthropic?.close();
    await openai?.close();
    await cluster?.stop();
  }, 60_000);
}

/** The model's side of a cycle: the person's word says which tools to call; after results, it is done. */
function replyTo(body: unknown): FakeReply {
  const messages = (body as { messages: { role: string; content: string | { type: string; text?: string }[] }[] })
    .messages;
  const last = messages.at(-1)!;
  const blocks = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  // Anthropic merges a cancelled turn's results and the next message into one user message.
  const word = blocks.findLast((block) => block.type === "text")?.text;
  if (word === undefined) return { text: "Done." };
  const pick = { name: "pick_template", input: { templates: ["a", "b"] } };
  const publish = { name: "publish_poster", input: { title: "Spring" } };
  if (word === "pick") return { text: "Pick one.", toolCalls: [pick] };
  if (word === "publish") return { text: "Approve this.", toolCalls: [publish] };
  return { text: "Both.", toolCalls: [pick, publish] };
}

interface Instance {
  child: ChildProcess;
  origin: string;
  exited: Promise<void>;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

async function startInstance(schema: string): Promise<Instance> {
  const script = await bundledEntry(join(import.meta.dirname, "processes/instance-server.ts"));
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      HITL_DATABASE_URL: database,
      HITL_SCHEMA: schema,
      HITL_LEASE_MS: String(LEASE_MS),
      HITL_TOOL_MS: "150",
      HITL_ANTHROPIC_URL: `${anthropic.baseURL}`,
      HITL_OPENAI_URL: `${openai.baseURL}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    if (process.env.HITL_SCALE_DEBUG) process.stderr.write(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (chunk) => resolve(String(chunk).trim()));
    void exited.then(() => reject(new Error(`an instance exited: ${stderr}`)));
  });
  return { child, origin, exited };
}

/**
 * A round-robin HTTP proxy, as a load balancer: each request goes to the next instance; one
 * that refuses the connection (dead) is skipped. A stream whose instance dies is cut off.
 */
async function startProxy(targets: () => string[]): Promise<{ url: string; server: Server; forwarded: number[] }> {
  let next = 0;
  const forwarded = [0, 0, 0];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const list = targets();
    for (let attempt = 0; attempt < list.length; attempt += 1) {
      const index = next++ % list.length;
      try {
        await forward(list[index]!, request, body, response);
        forwarded[index]! += 1;
        return;
      } catch (error) {
        if ((error as { code?: string }).code === "ECONNREFUSED" && !response.headersSent) continue;
        if (response.headersSent) response.destroy();
        else response.writeHead(502).end();
        return;
      }
    }
    response.writeHead(502).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/api/agent`, server, forwarded };
}

function forward(target: string, request: IncomingMessage, body: Buffer, response: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      new URL(request.url!, target),
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(response);
        answer.on("error", reject);
        answer.on("aborted", () => reject(new Error("upstream aborted")));
        answer.on("end", () => resolve());
        response.on("close", () => {
          upstream.destroy();
          resolve();
        });
      },
    );
    upstream.on("error", reject);
    upstream.end(body);
  });
}

/** One person's browser: an identity cookie (minted by whichever instance answered first) sent everywhere. */
function person(base: string) {
  let cookie: string | undefined;
  const call = async (method: string, path: string, body?: unknown) => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(cookie ? { cookie } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).catch(() => undefined);
      // 502: the proxy lost the instance mid-request. The request is sent again, as a client does.
      if (!response || response.status === 502) {
        if (attempt > 40) throw new Error(`${method} ${path}: no instance answered`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      const set = response.headers.getSetCookie()[0];
      if (set) cookie = set.split(";")[0];
      const text = await response.text();
      // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any, retried: attempt > 0 };
    }
  };
  return { call, cookie: () => cookie };
}

/** A session's SSE stream that reconnects after a drop (from the last seq it saw) and checks its seqs are contiguous. */
function follow(base: string, sessionId: string, cookie: () => string | undefined) {
  const events: ProtocolEvent[] = [];
  const gaps: string[] = [];
  const waiters = new Set<() => void>();
  let closed = false;
  let reconnects = 0;
  const controller = new AbortController();
  const loop = (async () => {
    while (!closed) {
      const after = events.at(-1)?.seq ?? 0;
      try {
        const response = await fetch(`${base}/sessions/${sessionId}/events?after=${after}`, {
          headers: { cookie: cookie()! },
          signal: controller.signal,
        });
        if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
        const decode = eventFrameDecoder(sessionId);
        const reader = response
          .body!.pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>)
          .pipeThrough(new EventSourceParserStream())
          .getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const event = decode(value);
          const expected = (events.at(-1)?.seq ?? 0) + 1;
          if (event.seq !== expected) gaps.push(`${sessionId}: seq ${event.seq} after ${expected - 1}`);
          events.push(event);
          for (const wake of [...waiters]) wake();
        }
      } catch (error) {
        if (closed) return;
        if (process.env.HITL_SCALE_DEBUG) console.error(sessionId, "stream dropped:", error);
      }
      reconnects += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const until = (found: (event: ProtocolEvent) => boolean, what: string) =>
    new Promise<ProtocolEvent>((resolve, reject) => {
      const check = () => {
        const event = events.find(found);
        if (!event) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(event);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${sessionId}: no ${what} after 30 s; stream: ${events.map((e) => e.type).join(",")}`));
      }, 30_000);
      waiters.add(check);
      check();
    });
  return {
    events,
    gaps,
    until,
    reconnects: () => reconnects,
    async close() {
      closed = true;
      controller.abort();
      await loop;
    },
  };
}

const turnEnd = (turnId: string) => (event: ProtocolEvent) =>
  (event.type === "turn.completed" || event.type === "turn.cancelled" || event.type === "turn.failed") &&
  event.turnId === turnId;

describe.skipIf(!postgresAvailable)("three instances on one Postgres database", () => {
  it("keeps one result per tool call, every request and contiguous streams while an instance is killed and restarted", async () => {
    const schema = `scale_${Date.now()}`;
    const instances = await Promise.all([0, 1, 2].map(() => startInstance(schema)));
    const origins = instances.map((instance) => instance.origin);
    const proxy = await startProxy(() => origins);
    const outcomes = { answered: 0, cancelled: 0, cancelledRunning: 0 };

    async function runSession(index: number): Promise<{ sessionId: string; stream: ReturnType<typeof follow> }> {
      const browser = person(proxy.url);
      const created = await browser.call("POST", "/sessions", {});
      expect(created.status).toBe(201);
      const { sessionId } = created.body as { sessionId: string };
      const stream = follow(proxy.url, sessionId, browser.cookie);
      for (let cycle = 0; cycle < CYCLES; cycle += 1) {
        const word = ["pick", "publish", "both"][(index + cycle) % 3]!;
        const before = stream.events.at(-1)?.seq ?? 0;
        const sent = await browser.call("POST", `/sessions/${sessionId}/messages`, { text: word });
        let turnId: string;
        if (sent.status === 202) turnId = sent.body.turnId;
        else {
          // Sent again after a lost answer: the first one started the turn.
          expect({ status: sent.status, retried: sent.retried }).toMatchObject({ status: 409, retried: true });
          const started = await stream.until(
            (event) => event.seq > before && event.type === "turn.started" && event.cause === "message",
            "turn.started",
          );
          turnId = (started as Extract<ProtocolEvent, { type: "turn.started" }>).turnId;
        }
        await stream.until((event) => event.type === "turn.waiting" && event.turnId === turnId, "turn.waiting");
        const choice = (index * 7 + cycle * 3) % 10;
        if (choice < 3) {
          expect((await browser.call("POST", `/sessions/${sessionId}/cancel`, {})).status).toBe(202);
          outcomes.cancelled += 1;
        } else {
          const snapshot = (await browser.call("GET", `/sessions/${sessionId}`)).body as SessionSnapshot;
          const responses = snapshot.pending.map((request) => ({
            requestId: request.requestId,
            action: "accept",
            value: request.kind === "approval" ? {} : { templateId: "a" },
          }));
          const answered = await browser.call("POST", `/sessions/${sessionId}/responses`, { responses });
          expect([200, 202]).toContain(answered.status);
          outcomes.answered += 1;
          // Sometimes the person stops the turn while its tool runs, wherever it runs.
          if (choice === 9) {
            expect((await browser.call("POST", `/sessions/${sessionId}/cancel`, {})).status).toBe(202);
            outcomes.cancelledRunning += 1;
          }
        }
        const end = await stream.until(turnEnd(turnId), "end of turn");
        expect(end.type).not.toBe("turn.failed");
      }
      return { sessionId, stream };
    }

    /** What the database says of a session that did not finish: for the failure message. */
    const diagnose = async (error: unknown) => {
      const sessionId = /ses_[\w-]+/.exec(String(error))?.[0];
      const admin = new pg.Client({ connectionString: database });
      await admin.connect();
      try {
        const [session] = (
          await admin.query(`SELECT status, last_seq, body FROM ${schema}.sessions WHERE session_id = $1`, [sessionId])
        ).rows;
        const leases = (
          await admin.query(`SELECT *, now() AS now FROM ${schema}.turn_leases WHERE session_id = $1`, [sessionId])
        ).rows;
        const events = (
          await admin.query(`SELECT body FROM ${schema}.events WHERE session_id = $1 ORDER BY seq`, [sessionId])
        ).rows.map((row) => JSON.parse(row.body).type);
        const locks = (
          await admin.query(
            "SELECT l.pid, l.granted, l.objid, a.state, a.wait_event, left(a.query, 60) AS query, a.backend_start, now() FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND l.objid::int = hashtext($1)",
            [sessionId],
          )
        ).rows;
        throw new Error(
          `${String(error)}\nlocks: ${JSON.stringify(locks)}\nsession: ${JSON.stringify(session)}\nleases: ${JSON.stringify(leases)}\nlog: ${events.join(",")}\nkilled at ${killedAt - started} ms, restarted at ${restartedAt - started} ms`,
        );
      } finally {
        await admin.end();
      }
    };
    let killedAt = 0;
    let restartedAt = 0;
    const started = Date.now();
    const run = Promise.all(
      Array.from({ length: SESSIONS }, (_, index) => runSession(index).catch((error: unknown) => diagnose(error))),
    ) as Promise<{ sessionId: string; stream: ReturnType<typeof follow> }[]>;
    // Mid-run, one instance dies without a word, and comes back a little later.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    instances[1]!.child.kill("SIGKILL");
    killedAt = Date.now();
    await instances[1]!.exited;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const restarted = await startInstance(schema);
    restartedAt = Date.now();
    origins[1] = restarted.origin;
    const sessions = await run;
    const seconds = (Date.now() - started) / 1000;

    const store = postgresStore(database, { schema });
    let takenOver = 0;
    try {
      for (const { sessionId, stream } of sessions) {
        await stream.close();
        const log = await store.readEvents(sessionId, 0);
        takenOver += log.filter(
          (event) =>
            event.type === "message.abandoned" ||
            (event.type === "tool.result" && JSON.stringify(event.output).includes("restarted")),
        ).length;
        expect(checkOneResultPerCall(log), sessionId).toEqual([]);
        expect(stream.gaps).toEqual([]);
        // The stream saw every event of the log, in order.
        expect(stream.events.map((event) => event.seq)).toEqual(log.map((event) => event.seq));
        expect((await store.getSession(sessionId))?.status).toBe("idle");
        expect(await store.getOpenRequests(sessionId)).toEqual([]);
        // A message cut off by a killed (or replaced) driver is abandoned, not left streaming.
        expect(await store.streamingMessageIds(sessionId)).toEqual([]);
      }
    } finally {
      await store.close();
    }
    // Every prompt was valid for both providers' pairing rules (each rejects what breaks them).
    const rejected = [...anthropic.requests, ...openai.requests].filter((request) => request.status !== 200);
    expect(rejected.map((request) => request.error)).toEqual([]);
    expect(anthropic.requests.length).toBeGreaterThanOrEqual(SESSIONS * CYCLES);
    expect(outcomes.answered + outcomes.cancelled).toBe(SESSIONS * CYCLES);
    const reconnects = sessions.reduce((sum, { stream }) => sum + stream.reconnects(), 0);
    console.log(
      `scale-out: ${SESSIONS} sessions x ${CYCLES} cycles in ${seconds.toFixed(1)} s; ` +
        `${outcomes.answered} answered, ${outcomes.cancelled} cancelled while parked, ` +
        `${outcomes.cancelledRunning} cancelled while running; ${reconnects} stream reconnects; ` +
        `${takenOver} cut-off messages or tools finished by another instance; ` +
        `requests per instance ${proxy.forwarded.join("/")}`,
    );
    proxy.server.closeAllConnections();
    proxy.server.close();
  }, 150_000);
});

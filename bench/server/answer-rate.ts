import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { Agent, type ClientRequest, request } from "node:http";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";
import { now, percentile } from "../timer.js";

/** Answers per second and respond → `tool.result` latency with `concurrency` sessions answering in a closed loop (or paced). */
export interface AnswerRate {
  concurrency: number;
  /** The total rate the answers were paced at, when they were (see {@link AnswerRateSetup.paced}). */
  paced?: number;
  /** Median over the measured windows, and the lowest and highest window. */
  perSecond: number;
  perSecondSpread: [number, number];
  p50: number;
  p99: number;
  /** CPU time per answer, median over the windows: the server processes (all instances), and this (client) process. */
  serverCpuMs: number;
  clientCpuMs: number;
  /** How long the warm-up took (see {@link warmUpAnswers}). */
  warmUpSeconds: number;
  /** CPU time per answer of the PostgreSQL server (its postmaster and every backend), when the setup names its port. */
  databaseCpuMs?: number;
}

/** A process's stat(5) fields from the state on (field 3 is index 0), from /proc (Linux). */
function statOf(pid: number | string): string[] {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
}

/** CPU ticks in stat fields: utime and stime (fields 14 and 15), with `children`, cutime and cstime too. */
function ticksOf(fields: string[], children = false): number {
  const own = Number(fields[11]) + Number(fields[12]);
  return children ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/** A process's CPU time (user + system) so far, in ms. */
function processCpuMs(pid: number): number {
  return (ticksOf(statOf(pid)) * 1000) / clockTicks;
}
const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** The CPU time so far of a PostgreSQL server's processes: the postmaster listening on `port` and its children. */
function databaseCpuMs(port: number): number {
  const stats = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = statOf(pid);
        return [{ pid: Number(pid), stat, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8") }];
      } catch {
        return []; // gone meanwhile
      }
    });
  const postmaster = stats.find(({ cmdline }) => {
    const argv = cmdline.split("\0");
    return argv[0]!.endsWith("postgres") && argv.some((arg, index) => arg === "-p" && argv[index + 1] === `${port}`);
  });
  if (!postmaster) throw new Error(`no PostgreSQL server listens on port ${port}`);
  // The backends' own time, and the postmaster's with that of the backends it has reaped.
  const ticks = stats
    .filter(({ stat }) => Number(stat[1]) === postmaster.pid)
    .reduce((sum, { stat }) => sum + ticksOf(stat), ticksOf(postmaster.stat, true));
  return (ticks * 1000) / clockTicks;
}

/**
 * The warm-up: every server process that answers first answers this many times, so each
 * instance of several optimizes its code on as much work as one instance alone does. A
 * server's CPU per answer falls while V8 optimizes its code: at 10 sessions on Postgres,
 * one instance went from 3.2 to 1.7 ms per answer over ten 1 s windows after a 1 s warm-up,
 * and three instances, each with a third of the load, were still falling after 10 s.
 */
export const warmUpAnswers = 4_000;
/** The longest warm-up; the result says how long it was. */
const warmUpLimitMs = 45_000;
const windowMs = 1_000;
const windows = 10;

/** Where {@link measureAnswerRate} runs the server: how many instances, and what they are told. */
export interface AnswerRateSetup {
  /** Server processes on one store (default 1): only a Postgres store takes more. */
  instances?: number;
  /** Environment of the server processes (HITL_BENCH_DATABASE_URL, HITL_BENCH_SCHEMA). */
  env?: Record<string, string>;
  /**
   * With several instances: `crossed` (default) answers each session through the instance
   * after the one it streams from, so every `tool.result` crosses instances; `sticky` keeps
   * each session on one instance, as a balancer that routes by session would.
   */
  routing?: "crossed" | "sticky";
  /** The port of the PostgreSQL server the instances use, to count its CPU per answer. */
  databasePort?: number;
  /**
   * Answers per second in total, spread evenly over the sessions: each session answers on a
   * fixed schedule (open loop) instead of as soon as it can, and latency counts from when
   * the answer was due, so an answer held up by a server behind schedule counts its wait.
   * Latency at a stated rate below saturation; a closed loop measures it at saturation.
   */
  paced?: number;
}

/** Starts the benchmark runtime in its own process; resolves with its URL and a stop function. */
async function startServerProcess(env: Record<string, string> = {}) {
  const entry = fileURLToPath(new URL("serve-bench-runtime.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      ...(process.env.HITL_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.HITL_PROFILE}`] : []),
      entry,
    ],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once("exit", (code) => reject(new Error(`the benchmark server exited (${code})`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const json = { "content-type": "application/json" };

/**
 * The answers' POSTs, on kept-alive sockets through `node:http`: this process shares the
 * machine with the servers, and `fetch` cost it about as much CPU per answer as the server
 * spent. The same client measures every row.
 */
const agent = new Agent({ keepAlive: true });
function post(url: string, body: string, retried = false): Promise<void> {
  return new Promise((resolve, reject) => {
    const sent = request(url, {
      method: "POST",
      agent,
      headers: { ...json, "content-length": Buffer.byteLength(body) },
    });
    sent.once("error", (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as idle just as it was reused: the request never
      // reached the server, so it is sent again, once, on a new socket (as Node's docs advise).
      if (sent.reusedSocket && error.code === "ECONNRESET" && !retried) post(url, body, true).then(resolve, reject);
      else reject(error);
    });
    sent.once("response", (response) => {
      response.resume();
      response.once("end", () =>
        response.statusCode! < 300 ? resolve() : reject(new Error(`POST ${url}: ${response.statusCode}`)),
      );
    });
    sent.end(body);
  });
}

/**
 * `concurrency` sessions, each parked, answered, parked again by the model and answered
 * again, as fast as the server turns them round, over HTTP and SSE from this process to
 * the server's: after a warm-up, ten one-second windows are counted. With several instances,
 * the sessions are spread over them, and each streams from its instance and answers
 * through the next (`crossed`) or through the same (`sticky`).
 */
export async function measureAnswerRate(concurrency: number, setup: AnswerRateSetup = {}): Promise<AnswerRate> {
  const servers = await Promise.all(Array.from({ length: setup.instances ?? 1 }, () => startServerProcess(setup.env)));
  let sessions = 0;
  const latencies: number[] = [];
  let answered = 0;
  let measuring = false;
  /** The warm-up is over. */
  let measured = false;
  let stopping = false;
  const failures: unknown[] = [];
  const streams: ClientRequest[] = [];
  const answeringIndex = (index: number) => (setup.routing === "sticky" ? index : index + 1) % servers.length;
  /** Answers per server, counted until the warm-up ends: each server that answers warms up on as many. */
  const warmedUp = new Map(Array.from({ length: concurrency }, (_, index) => [answeringIndex(index), 0]));
  const loop = async () => {
    const index = sessions++;
    const server = servers[index % servers.length]!;
    const answering = servers[answeringIndex(index)]!;
    const created = await fetch(`${server.url}/sessions`, { method: "POST", headers: json, body: "{}" });
    const { sessionId } = (await created.json()) as { sessionId: string };
    let sent = 0;
    // Paced: when this session's next answer is due; its first comes a share of the interval after its first request.
    const interval = setup.paced ? (concurrency / setup.paced) * 1000 : 0;
    let due: number | undefined;
    let rebased = false;
    const answer = async (requestId: string) => {
      if (interval > 0) {
        due = due === undefined ? now() + (index / concurrency) * interval : due + interval;
        // What the warm-up fell behind is not carried into the measured windows.
        if (!rebased && measured) {
          rebased = true;
          due = Math.max(due, now());
        }
        const wait = due - now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sent = due;
      } else sent = now();
      await post(
        `${answering.url}/sessions/${sessionId}/responses`,
        JSON.stringify({ responses: [{ requestId, action: "accept", value: { templateId: "calm" } }] }),
      );
    };
    const parser = createParser({
      onEvent(message) {
        const type = message.event;
        if (type === "tool.result" && sent > 0) {
          if (measuring) {
            latencies.push(now() - sent);
            answered++;
          }
          if (!measured) warmedUp.set(answeringIndex(index), warmedUp.get(answeringIndex(index))! + 1);
          sent = 0;
        }
        if (type === "input.requested") {
          // Only the events the loop acts on are parsed.
          const event = JSON.parse(message.data) as { requests: { requestId: string }[] };
          answer(event.requests[0]!.requestId).catch((error: unknown) => {
            if (!stopping) failures.push(error);
          });
        }
      },
    });
    // The stream on a socket of its own, read as text through `node:http`, open before the first message.
    const { closed } = await new Promise<{ closed: Promise<void> }>((opened, reject) => {
      const stream = request(`${server.url}/sessions/${sessionId}/events`);
      streams.push(stream);
      stream.once("error", reject);
      stream.once("response", (response) => {
        response.setEncoding("utf8");
        response.on("data", (text: string) => parser.feed(text));
        opened({ closed: new Promise((resolve) => response.once("close", resolve)) });
      });
      stream.end();
    });
    await fetch(`${server.url}/sessions/${sessionId}/messages`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ text: "go" }),
    });
    await closed;
  };
  const loops = Array.from({ length: concurrency }, loop);
  // Paced, a server still compiling its code falls behind the schedule: after the warm-up,
  // each session's schedule starts again from its next answer.
  const warmUpStart = now();
  while (
    Math.min(...warmedUp.values()) < warmUpAnswers &&
    now() - warmUpStart < warmUpLimitMs &&
    failures.length === 0
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const warmUpSeconds = (now() - warmUpStart) / 1000;
  const rates: number[] = [];
  const serverCpu: number[] = [];
  const clientCpu: number[] = [];
  const databaseCpu: number[] = [];
  const { databasePort } = setup;
  measured = true;
  for (let window = 0; window < windows; window++) {
    // The database's processes are looked up outside the client's CPU window.
    const databaseStart = databasePort ? databaseCpuMs(databasePort) : 0;
    answered = 0;
    measuring = true;
    const start = now();
    const serversCpu = () => servers.reduce((sum, server) => sum + processCpuMs(server.pid), 0);
    const serverStart = serversCpu();
    const clientStart = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    measuring = false;
    rates.push(answered / ((now() - start) / 1000));
    serverCpu.push((serversCpu() - serverStart) / answered);
    const client = process.cpuUsage(clientStart);
    clientCpu.push((client.user + client.system) / 1000 / answered);
    if (databasePort) databaseCpu.push((databaseCpuMs(databasePort) - databaseStart) / answered);
  }
  stopping = true;
  for (const stream of streams) stream.destroy();
  await Promise.allSettled(loops);
  agent.destroy();
  await Promise.all(servers.map((server) => server.stop()));
  // A lost answer stops that session's loop: the rate would be wrong, so the case fails.
  if (failures.length > 0) throw new Error(`${failures.length} answers failed`, { cause: failures[0] });
  return {
    concurrency,
    ...(setup.paced ? { paced: setup.paced } : {}),
    warmUpSeconds,
    perSecond: percentile(rates, 0.5),
    perSecondSpread: [Math.min(...rates), Math.max(...rates)],
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    serverCpuMs: percentile(serverCpu, 0.5),
    clientCpuMs: percentile(clientCpu, 0.5),
    ...(databasePort ? { databaseCpuMs: percentile(databaseCpu, 0.5) } : {}),
  };
}

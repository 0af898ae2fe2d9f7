import { emptySnapshot, type ProtocolEvent, reduceSession } from "@hitl-kit/protocol";
import type { AgentCommand, CommandReply, EventSink, Transport } from "./transport.js";

/** A command a client sent through a {@link ReplayTransport}. */
export type RecordedCommand = AgentCommand & { sessionId: string };

/** Options of {@link replayTransport}. */
export interface ReplayOptions {
  /** Release the events up to this seq at once, as if they had happened before the client came (default: none). */
  playedTo?: number;
  /** The session id when there are no events to take it from (default `ses_replay`). */
  sessionId?: string;
  /** Answers a command instead of the default `202` (throw a `ProtocolError` to act out a refusal). */
  answer?: (command: RecordedCommand) => CommandReply;
}

/** A transport that plays a recorded event list: see {@link replayTransport}. */
export interface ReplayTransport extends Transport {
  /** The recorded session's id: attach a client to it with `createAgentClient({ transport, sessionId })`. */
  readonly sessionId: string;
  /** Every recorded event, in order. */
  readonly events: readonly ProtocolEvent[];
  /** The seq of the last event released (0 before the first). */
  readonly position: number;
  /** Whether every event has been released. */
  readonly done: boolean;
  /** The commands clients sent, in order. */
  readonly commands: readonly RecordedCommand[];
  /** Releases the next event to the connected clients; returns it, or `undefined` at the end. */
  step(): ProtocolEvent | undefined;
  /** Releases every event up to and including `seq`. */
  stepTo(seq: number): void;
  /** Releases every remaining event. */
  playAll(): void;
}

/**
 * Drives clients from a recorded event list with no server, for tests and Storybook:
 * the snapshot is the fold of the events released so far, the stream replays them after
 * `Last-Event-ID` and then each one `step()` releases. Commands are recorded in
 * `commands` and answered `202` like the server would; their events come only from the
 * recording, so a `respond()` stays `submitting` until an `input.resolved` is stepped to.
 * @example
 * const replay = replayTransport(recordedEvents);
 * const client = createAgentClient({ transport: replay, sessionId: replay.sessionId });
 * replay.stepTo(12); // the parked picker is now in client.getSnapshot().pending
 */
export function replayTransport(events: readonly ProtocolEvent[], options: ReplayOptions = {}): ReplayTransport {
  const sessionId = events[0]?.sessionId ?? options.sessionId ?? "ses_replay";
  // `next`: the index of the next event this sink has not seen.
  const sinks = new Set<{ sink: EventSink; next: number }>();
  const commands: RecordedCommand[] = [];
  let index = 0;
  let turns = 0;

  const deliver = (target: { sink: EventSink; next: number }) => {
    while (target.next < index) target.sink.event(events[target.next++] as ProtocolEvent);
  };
  const defaultAnswer = (command: RecordedCommand): CommandReply => {
    if (command.type === "message") return { status: 202, body: { turnId: `turn_replay_${++turns}` } };
    if (command.type === "responses") return { status: 202, body: { resolutions: command.responses } };
    if (command.type === "delete") return { status: 204, body: undefined };
    return { status: 202, body: {} };
  };
  const replay: ReplayTransport = {
    sessionId,
    events,
    get position() {
      return events[index - 1]?.seq ?? 0;
    },
    get done() {
      return index >= events.length;
    },
    commands,
    async createSession() {
      return { sessionId };
    },
    async loadSnapshot(id) {
      return events.slice(0, index).reduce(reduceSession, emptySnapshot(id));
    },
    async send(id, command) {
      const recorded = { ...command, sessionId: id };
      commands.push(recorded);
      return (options.answer ?? defaultAnswer)(recorded);
    },
    openStream(_id, { lastSeq, sink }) {
      const after = lastSeq();
      const next = events.findIndex((event) => event.seq > after);
      const target = { sink, next: next === -1 ? events.length : next };
      sinks.add(target);
      sink.connection("open");
      deliver(target);
      return () => {
        if (!sinks.delete(target)) return;
        sink.connection("closed");
      };
    },
    step() {
      const event = events[index];
      if (!event) return undefined;
      index++;
      for (const target of sinks) deliver(target);
      return event;
    },
    stepTo(seq) {
      while (index < events.length && (events[index] as ProtocolEvent).seq <= seq) replay.step();
    },
    playAll() {
      while (replay.step());
    },
  };
  if (options.playedTo !== undefined) replay.stepTo(options.playedTo);
  return replay;
}

import { type EventInput, type InputResponse, ProtocolError } from "@hitl-kit/protocol";
import { jsonEqual } from "@hitl-kit/protocol/internal";
import { type RequestRecord, type SessionRecord, wireResolution } from "../store/records.js";
import type { ResolutionView, RespondResult } from "./agent-runtime-types.js";
import { ExpiryTimer } from "./expiry-timer.js";
import type { PlanSettlementInput } from "./plan-settlement.js";
import type { RuntimeCore } from "./runtime-core.js";
import { shuttingDown } from "./runtime-lifecycle.js";
import type { TurnDriver } from "./turn-driver.js";

/**
 * Settles parked requests under their session's lock — the person's answers
 * (`respond`), and expiries: those due when a session is read, and those its timer finds —
 * resuming the turn when they were the last ones it waited for.
 */
export class RequestSettler {
  /** The runtime's one timer for the earliest open request's expiry, which settles what is due. */
  readonly expiry: ExpiryTimer;

  constructor(
    private readonly core: RuntimeCore,
    private readonly driver: TurnDriver,
    /** Whether the runtime is closing: it then starts no turn, so an answer to a parked turn is refused. */
    private readonly closing: () => boolean,
  ) {
    this.expiry = new ExpiryTimer(
      core.store,
      (sessionId, requestId) => this.expire(sessionId, requestId),
      (error) => core.trouble("settling expired requests failed (tried again every second)", error),
    );
  }

  /**
   * Runs `section` under the session's lock, with the session (its due requests expired). A
   * section whose settlement the store refused runs again once, from a fresh read: the
   * session changed meanwhile, which its lock keeps out unless the lock's connection dropped
   * (the database let the lock go), and the store's guards refused the write instead.
   */
  async withSession<T>(sessionId: string, section: (session: SessionRecord) => Promise<T>): Promise<T> {
    const once = () =>
      this.core.lock.run(sessionId, async () =>
        section(await this.#expireDue(await this.core.requireSession(sessionId))),
      );
    try {
      return await once();
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile)) throw error;
      return once();
    }
  }

  /** Settles the responses' requests (see `AgentRuntime.respond`). */
  respond(sessionId: string, responses: InputResponse[]): Promise<RespondResult> {
    const { store } = this.core;
    return this.withSession(sessionId, async (session) => {
      const ids = responses.map((response) => response.requestId);
      if (new Set(ids).size !== ids.length) {
        throw new ProtocolError("bad_request", "Each request may be answered once per body.");
      }
      const valued = responses.find((response) => response.action !== "accept" && response.value !== undefined);
      if (valued) {
        throw new ProtocolError(
          "bad_request",
          `A ${valued.action} carries no value (request ${valued.requestId}): say why in "reason".`,
        );
      }
      // A closing runtime starts no turn, and an answer to a parked turn may resume it.
      if (this.closing() && session.status === "waiting") throw shuttingDown();
      // Most answers are to open requests, read at once; the settlement needs them all anyway.
      const openRequests = await store.getOpenRequests(sessionId);
      const openById = new Map(openRequests.map((record) => [record.requestId, record]));
      const records: RequestRecord[] = [];
      for (const response of responses) {
        const record = openById.get(response.requestId) ?? (await store.getRequest(sessionId, response.requestId));
        if (!record) throw new ProtocolError("not_found", `There is no request ${response.requestId} in this session.`);
        if (record.state === "settled" && !sameAnswer(record, response)) {
          throw new ProtocolError(
            "already_resolved",
            `Request ${record.requestId} was already resolved (${record.resolution?.action}) with a different answer.`,
            { resolution: view(record) },
          );
        }
        records.push(record);
      }
      const open = responses.flatMap((cause, index) => {
        const record = records[index]!;
        return record.state === "open" ? [{ record, cause }] : [];
      });
      const settledNow = open.length > 0 ? await this.#settle(session, open, openRequests) : [];
      const settled = new Map(settledNow.map((record) => [record.requestId, record]));
      return {
        status: open.length > 0 ? 202 : 200,
        resolutions: records.map((record) => view(settled.get(record.requestId) ?? record)),
      };
    });
  }

  /** Settles one request as expired, if it is still open (for the expiry timer). */
  expire(sessionId: string, requestId: string): Promise<void> {
    const { store } = this.core;
    return this.core.lock.run(sessionId, async () => {
      const session = await store.getSession(sessionId);
      const record = await store.getRequest(sessionId, requestId);
      if (!session || record?.state !== "open") return;
      await this.#settle(session, [{ record, cause: { action: "expire" } }]);
    });
  }

  /**
   * Settles open requests under the session's lock, resuming the turn when they were the
   * last ones it waited for; answers the settled records. `open` is the session's open
   * requests when the caller has just read them.
   */
  async #settle(
    session: SessionRecord,
    items: PlanSettlementInput[],
    open?: RequestRecord[],
  ): Promise<RequestRecord[]> {
    const { core } = this;
    const { settlements, stepCalls } = await core.planSettlements(session, items);
    const settledIds = new Set(items.map((item) => item.record.requestId));
    open ??= await core.store.getOpenRequests(session.sessionId);
    const resumes = session.status === "waiting" && open.every((request) => settledIds.has(request.requestId));
    const approved = settlements.flatMap((settlement) => (settlement.approvedTool ? [settlement.approvedTool] : []));
    const events: EventInput[] = settlements.flatMap((settlement) => settlement.events);
    if (resumes) events.push({ type: "turn.started", turnId: session.turnId!, cause: "responses" });
    // When the last answer leaves nothing to run, the step closes in the same write.
    const closing = resumes ? core.closeStep(stepCalls) : undefined;
    const result = await core.commit(session.sessionId, {
      events,
      requests: settlements.map((settlement) => settlement.request),
      toolCalls: settlements.map((settlement) => settlement.call),
      requireOpen: [...settledIds],
      ...(closing?.transcript ? { transcript: closing.transcript } : {}),
      ...(resumes || approved.length > 0
        ? {
            session: {
              ...closing?.session,
              // A cancel kept for this turn before it parked (its instance died before it saw
              // the turn parked) is over: the person answered what the turn asks, so it goes on.
              ...(resumes ? { status: "resuming" as const, cancelRequested: undefined } : {}),
              ...(approved.length > 0 ? { approvedTools: [...new Set([...session.approvedTools, ...approved])] } : {}),
            },
          }
        : {}),
    });
    if (!result.ok) throw new ChangedMeanwhile(`Settlement refused (${result.reason}) under the session lock.`);
    if (resumes) this.driver.kick(session.sessionId);
    return settlements.map((settlement) => settlement.request);
  }

  async #expireDue(session: SessionRecord): Promise<SessionRecord> {
    const now = Date.now();
    // Alone on its store, the runtime knows every request's expiry: most sessions are read without a look.
    if (!this.core.coordination.shared && !this.expiry.mayHaveDue(now)) return session;
    const due = (await this.core.store.getOpenRequests(session.sessionId)).filter(
      (record) => record.expiresAt !== undefined && record.expiresAt <= now,
    );
    if (due.length === 0) return session;
    await this.#settle(
      session,
      due.map((record) => ({ record, cause: { action: "expire" } })),
    );
    return this.core.requireSession(session.sessionId);
  }
}

/** A write under a session's lock was refused by the store's guards: the session changed meanwhile. */
class ChangedMeanwhile extends Error {}

function view(record: RequestRecord): ResolutionView {
  return { requestId: record.requestId, ...wireResolution(record.resolution!) };
}

function sameAnswer(record: RequestRecord, response: InputResponse): boolean {
  const resolution = record.resolution;
  if (!resolution || resolution.action !== response.action) return false;
  if ((resolution.reason ?? undefined) !== (response.reason ?? undefined)) return false;
  if (response.action !== "accept") return true;
  const asked = record.request.kind === "approval" ? (response.value ?? {}) : response.value;
  return jsonEqual(asked, resolution.value);
}

import { prepared } from "./postgres-schema.js";

/** The columns of a session's row that `fromRow` reads. */
const sessionColumns = "body, last_seq, owner, updated_at, transcript_len";

/**
 * The Postgres store's reads, in the schema `s`: each named, so each connection parses and
 * plans it once (see `prepared`).
 */
export function readStatements(s: string) {
  const named = (name: string, text: string) => prepared(s, name, text);
  const sessionsAfter = (owner: boolean) =>
    `SELECT ${sessionColumns}, (SELECT COUNT(*)::int FROM ${s}.requests r
       WHERE r.session_id = sessions.session_id AND r.state = 'open') AS pending
     FROM ${s}.sessions WHERE ${owner ? "owner = $4 AND " : ""}(created_at, session_id) < ($1, $2)
     ORDER BY created_at DESC, session_id DESC LIMIT $3`;

  return {
    readEvents: named(
      "read_events",
      `SELECT body FROM ${s}.events WHERE session_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3`,
    ),
    lastEvent: named("last_event", `SELECT body FROM ${s}.events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`),
    session: named("session", `SELECT ${sessionColumns} FROM ${s}.sessions WHERE session_id = $1`),
    sessionsAfter: named("sessions_after", sessionsAfter(false)),
    ownerSessionsAfter: named("owner_sessions_after", sessionsAfter(true)),
    countSessions: named("count_sessions", `SELECT COUNT(*)::int AS count FROM ${s}.sessions WHERE owner = $1`),
    snapshot: named(
      "snapshot",
      `SELECT s.last_seq, s.projection, (SELECT json_agg(json_build_array(m.idx, m.body) ORDER BY m.idx DESC)
         FROM (SELECT idx, body FROM ${s}.messages WHERE session_id = $1 AND idx < $2 ORDER BY idx DESC LIMIT $3) m) AS page
       FROM ${s}.sessions s WHERE s.session_id = $1`,
    ),
    requests: named("requests", `SELECT body FROM ${s}.requests WHERE session_id = $1 AND request_id = ANY($2)`),
    projection: named("projection", `SELECT projection FROM ${s}.sessions WHERE session_id = $1`),
    transcript: named(
      "transcript",
      `SELECT message FROM ${s}.transcript WHERE session_id = $1 AND idx >= $2 ORDER BY idx`,
    ),
    toolCalls: named(
      "tool_calls",
      `SELECT body FROM ${s}.tool_calls WHERE session_id = $1 AND turn_id = $2 AND step = $3`,
    ),
    request: named("request", `SELECT body FROM ${s}.requests WHERE session_id = $1 AND request_id = $2`),
    openRequests: named("open_requests", `SELECT body FROM ${s}.requests WHERE session_id = $1 AND state = 'open'`),
    keyedTurn: named(
      "keyed_turn",
      `SELECT ${s}.parse_json(body) ->> 'turnId' AS turn_id FROM ${s}.events
       WHERE session_id = $1 AND ${s}.event_message_key(body) = $2 LIMIT 1`,
    ),
  };
}

/**
 * The statements of a write, in the schema `s`: the read of what it needs, the lock of the
 * session's row, and the one statement that writes everything.
 *
 * A write is at most two round trips whatever its batch holds: one read of what the guards
 * and the projection need, with the version of the session's row (its xmin), and one
 * statement that writes everything, each table's rows passed as arrays, if and only if the
 * row is still that version (every write updates it) and the turn's lease still held;
 * autocommit makes it one transaction. In a critical section whose read (`lock_session`)
 * is still the row's version and knows what the batch touches, the write skips its read.
 * When another write came between, the write runs again in a
 * transaction that locks the row first (BEGIN, the lock, the read, the write, COMMIT), as
 * does a write that removes an abandoned message: the read comes after the lock, so its
 * snapshot has every write before (a read FOR UPDATE would wait for the lock but read its
 * subqueries in the snapshot it took before). The statements are prepared once per connection.
 */
export function writeStatements(s: string) {
  const readColumns = `SELECT s.xmin::text AS version, s.status, s.body, s.last_seq, s.transcript_len, s.projection, s.owner,
       (SELECT json_agg(r.body) FROM ${s}.requests r
         WHERE r.session_id = $1 AND r.request_id = ANY($2::text[]) AND r.state <> 'open') AS settled,
       (SELECT json_agg(json_build_array(m.idx, m.message_id, m.body)) FROM ${s}.messages m
         WHERE m.session_id = $1 AND (m.message_id = ANY($3::text[]) OR m.message_id IN (
           SELECT c.message_id FROM ${s}.tool_calls c WHERE c.session_id = $1 AND c.tool_call_id = ANY($4::text[])))
       ) AS touched,
       $5::text IS NULL OR EXISTS (SELECT 1 FROM ${s}.turn_leases l
         WHERE l.session_id = $1 AND l.holder = $5 AND l.expires_at > now()) AS leased
     FROM ${s}.sessions s WHERE s.session_id = $1`;
  const readForWrite = { name: `${s}_read_for_write`, text: readColumns };
  const lockRow = { name: `${s}_lock_row`, text: `SELECT 1 FROM ${s}.sessions WHERE session_id = $1 FOR UPDATE` };
  const applied = `EXISTS (SELECT 1 FROM session)`;
  const writeAll = {
    name: `${s}_write_all`,
    text: `WITH
       session AS (UPDATE ${s}.sessions SET status = $18, body = $19, last_seq = $20, updated_at = $21,
         transcript_len = $22, projection = $23 WHERE session_id = $1 AND xmin = $26::text::xid
         AND ($27::text IS NULL OR EXISTS (SELECT 1 FROM ${s}.turn_leases l
           WHERE l.session_id = $1 AND l.holder = $27 AND l.expires_at > now()))
         RETURNING xmin::text AS version),
       events AS (INSERT INTO ${s}.events (session_id, seq, body)
         SELECT $1, * FROM unnest($2::int[], $3::text[]) WHERE ${applied}),
       transcript AS (INSERT INTO ${s}.transcript (session_id, idx, message)
         SELECT $1, * FROM unnest($4::int[], $5::text[]) WHERE ${applied}),
       calls AS (INSERT INTO ${s}.tool_calls (session_id, tool_call_id, turn_id, step, message_id, body)
         SELECT $1, * FROM unnest($6::text[], $7::text[], $8::int[], $9::text[], $10::text[]) WHERE ${applied}
         ON CONFLICT (session_id, tool_call_id) DO UPDATE SET turn_id = excluded.turn_id, step = excluded.step,
           message_id = excluded.message_id, body = excluded.body),
       requests AS (INSERT INTO ${s}.requests (session_id, request_id, state, expires_at, body)
         SELECT $1, * FROM unnest($11::text[], $12::text[], $13::bigint[], $14::text[]) WHERE ${applied}
         ON CONFLICT (session_id, request_id) DO UPDATE SET state = excluded.state,
           expires_at = excluded.expires_at, claimed_until = NULL, body = excluded.body),
       messages AS (INSERT INTO ${s}.messages (session_id, idx, message_id, body)
         SELECT $1, m.idx, m.id, m.body FROM unnest($15::int[], $16::text[], $17::text[], $29::bool[]) AS m(idx, id, body, fresh)
         WHERE NOT m.fresh AND ${applied}
         ON CONFLICT (session_id, message_id) DO UPDATE SET idx = excluded.idx, body = excluded.body),
       fresh AS (INSERT INTO ${s}.messages (session_id, idx, message_id, body)
         SELECT $1, m.idx, m.id, m.body FROM unnest($15::int[], $16::text[], $17::text[], $29::bool[]) AS m(idx, id, body, fresh)
         WHERE m.fresh AND ${applied}),
       ended AS (DELETE FROM ${s}.turn_leases l WHERE l.session_id = $1 AND l.holder = $28 AND ${applied}),
       took AS (INSERT INTO ${s}.turn_leases AS lease (session_id, holder, token, expires_at)
         SELECT $1, $30, 1, now() + make_interval(secs => $31) WHERE $30::text IS NOT NULL AND ${applied}
         ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
           token = CASE WHEN lease.holder = excluded.holder THEN lease.token ELSE lease.token + 1 END
         WHERE lease.holder = excluded.holder OR lease.expires_at <= now()
         RETURNING token)
     SELECT (SELECT version FROM session) AS version, EXISTS (SELECT 1 FROM took) AS took,
       CASE WHEN $24::text IS NOT NULL AND ${applied} THEN pg_notify($25, $24) END`,
  };
  return { readForWrite, lockRow, writeAll };
}

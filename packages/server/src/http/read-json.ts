import { ProtocolError } from "@hitl-kit/protocol";
import { type CommandBodies, parseCommandBody } from "@hitl-kit/protocol/internal";

/** How deeply arrays and objects may nest in a body. */
export const MAX_JSON_DEPTH = 64;

/**
 * Reads a command's JSON body of at most `maxBytes`, then checks it against the wire protocol.
 * The body must be declared `application/json`: no HTML form and no `no-cors` fetch can
 * declare it, so this is half of the CSRF defence. An empty body reads as `{}`.
 * @throws {ProtocolError} `unsupported_media_type`, `payload_too_large` or `bad_request`, each saying what to fix
 */
export async function readJson<K extends keyof CommandBodies>(
  request: Request,
  command: K,
  maxBytes: number,
): Promise<CommandBodies[K]> {
  const type = request.headers.get("content-type");
  if (!type || !/^application\/(.+\+)?json\s*(;|$)/i.test(type)) {
    throw new ProtocolError(
      "unsupported_media_type",
      `Send the body as JSON with Content-Type: application/json${type ? `, not ${type}` : ""}.`,
    );
  }
  if (request.bodyUsed) {
    throw new Error(
      "The request's body was read before it reached hitl-kit's handler, which reads it itself: put the handler before what read it (a body parser, a middleware that called c.req.json() or request.json()), or give it request.clone() taken before the read.",
    );
  }
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readWhole(request, () => readText(request, maxBytes, declared >= 0));
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    // Without the piece of the body V8 quotes (`Unexpected token 'D', "{"iban": DE0"... is not
    // valid JSON`): what was sent may be personal, and proxies and tracing keep error bodies.
    const why = (error as Error).message.replace(/, (\.\.\.)?".*$/s, "");
    throw new ProtocolError("bad_request", `The body is not valid JSON: ${why}.`);
  }
  if (depthExceeds(json, MAX_JSON_DEPTH)) {
    throw new ProtocolError("bad_request", `The body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.`);
  }
  return parseCommandBody(command, json);
}

/**
 * What `read` makes of the request's body. A body that fails part way (the client aborted
 * the upload, its connection dropped) is the client's doing, not a server error: a `400`,
 * logged nowhere. A body the host read before the handler got it is the host's bug, and
 * fails as it is (`readJson` says what to change).
 */
async function readWhole<T>(request: Request, read: () => Promise<T>): Promise<T> {
  const unread = !request.bodyUsed;
  try {
    return await read();
  } catch (error) {
    if (error instanceof ProtocolError || !unread) throw error;
    throw new ProtocolError("bad_request", "The request body was cut off: the connection ended before all of it came.");
  }
}

/**
 * The body as text. A body of a declared length (within the limit: the HTTP server holds
 * the client to it) is read whole, which Node's adapter does straight from the socket; one
 * sent in chunks is read a chunk at a time and refused once it passes the limit.
 */
async function readText(request: Request, maxBytes: number, lengthDeclared: boolean): Promise<string> {
  if (lengthDeclared) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return decodeUtf8(bytes);
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await discardRest(reader, size, Math.max(maxBytes * 8, DISCARD_BYTES));
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeUtf8(bytes);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProtocolError("bad_request", "The body is not valid UTF-8.");
  }
}

/** How much of a body over the limit is read and dropped (at least), so the connection can carry the next request. */
const DISCARD_BYTES = 8 * 1024 * 1024;

/**
 * Reads the rest of a body over the limit without keeping it, so the answer (413) can be
 * sent on a connection that is still usable; a body that goes on past `limit` bytes is
 * cancelled instead, which may close the connection.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, read: number, limit: number) {
  let size = read;
  while (size <= limit) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
  }
  await reader.cancel();
}

function tooLarge(maxBytes: number): ProtocolError {
  return new ProtocolError("payload_too_large", `The body is larger than ${maxBytes} bytes.`);
}

/** Whether a parsed JSON value nests arrays and objects deeper than `limit` (walked without recursion). */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

import { type CommandBodies, ProtocolError, parseCommandBody } from "@hitl-kit/protocol";

/**
 * Reads a command's JSON body of at most `maxBytes`, then checks it against protocol v1.
 * @throws {ProtocolError} `unsupported_media_type`, `payload_too_large` or `bad_request`, each saying what to fix
 */
export async function readJson<K extends keyof CommandBodies>(
  request: Request,
  command: K,
  maxBytes: number,
): Promise<CommandBodies[K]> {
  const type = request.headers.get("content-type");
  if (type && !/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ProtocolError("unsupported_media_type", `Send the body as application/json, not ${type}.`);
  }
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readText(request, maxBytes);
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new ProtocolError("bad_request", `The body is not valid JSON: ${(error as Error).message}`);
  }
  return parseCommandBody(command, json);
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
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
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ProtocolError("bad_request", "The body is not valid UTF-8.");
  }
}

function tooLarge(maxBytes: number): ProtocolError {
  return new ProtocolError("payload_too_large", `The body is larger than ${maxBytes} bytes.`);
}

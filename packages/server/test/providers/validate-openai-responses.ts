import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * What the OpenAI Responses API keeps on its side: every output item of a response made with
 * `store: true` (the default), for `item_reference`, and each response's items in order, for
 * what must follow a reasoning item.
 */
export type ResponsesStorage = {
  /** Items by id (`rs_…`, `msg_…`, `fc_…`), stored or not: `stored` says whether a reference may name it. */
  items: Map<string, StoredItem>;
  /** Responses by id. */
  responses: Map<string, StoredResponse>;
};

export type OutputItem = Record<string, unknown> & { id: string; type: string };

export type StoredItem = { item: OutputItem; responseId: string; index: number; stored: boolean };

export type StoredResponse = {
  id: string;
  stored: boolean;
  output: OutputItem[];
};

export function responsesStorage(): ResponsesStorage {
  return { items: new Map(), responses: new Map() };
}

/** The parts of an OpenAI `invalid_request_error` body: `{error: {message, type, param, code}}`. */
export type ResponsesRequestError = { message: string; param: string | null; code: string | null; status?: number };

/** An input item once references are resolved: what the model reads. */
export type InputItem = Record<string, unknown> & { type: string; id?: string };

/** The key the fake "encrypts" reasoning with; any other content fails verification, as a forged blob would. */
const KEY = "fake-openai-responses";

/** The `encrypted_content` of a reasoning item: its id and its response's, signed. */
export function encryptReasoning(itemId: string, responseId: string): string {
  const payload = Buffer.from(JSON.stringify({ itemId, responseId })).toString("base64url");
  return `gAAAAA${payload}.${createHmac("sha256", KEY).update(payload).digest("base64url")}`;
}

function decryptReasoning(content: string): { itemId: string; responseId: string } | undefined {
  const match = /^gAAAAA([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(content);
  if (!match) return undefined;
  const [, payload, signature] = match as unknown as [string, string, string];
  const expected = createHmac("sha256", KEY).update(payload).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

const ROLES = new Set(["user", "assistant", "system", "developer"]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const invalid = (message: string, param: string | null = "input", code: string | null = null) => ({
  message,
  param,
  code,
});

/**
 * Checks a Responses API request body (`POST /v1/responses`) the way the API does before it
 * replies, against what `storage` holds, and returns the error it would answer (400 unless
 * `status` says otherwise), or `null` when it would accept it.
 *
 * It covers: the required fields; tool names; `item_reference`s (the item must exist and have
 * been stored, not made with `store: false`); duplicate item ids; `encrypted_content` (must verify); reasoning items,
 * which must be followed by the item that followed them in their response; items with an id
 * (`fc_…`, `msg_…`) whose response had a reasoning item before them, which must come with it;
 * and tool calls and outputs: every `function_call` needs a `function_call_output` with its
 * `call_id` after it, and every output a call before it.
 */
export function checkResponsesRequest(
  body: unknown,
  storage: ResponsesStorage,
): { error: ResponsesRequestError } | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { error: invalid("We could not parse the JSON body of your request.", null) };
  }
  const request = body as Record<string, unknown>;
  if (typeof request.model !== "string") {
    return { error: invalid("Missing required parameter: 'model'.", "model", "missing_required_parameter") };
  }
  if (request.input === undefined) {
    return { error: invalid("Missing required parameter: 'input'.", "input", "missing_required_parameter") };
  }
  for (const [i, tool] of (Array.isArray(request.tools) ? request.tools : []).entries()) {
    const { type, name } = tool as { type?: unknown; name?: unknown };
    if (type === "function" && (typeof name !== "string" || !TOOL_NAME.test(name))) {
      return {
        error: invalid(
          `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].name`,
          "invalid_value",
        ),
      };
    }
  }
  const raw = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
  if (!Array.isArray(raw)) return { error: invalid("Invalid type for 'input': expected a string or an array.") };

  // Resolve references and check each item on its own.
  const seenIds = new Map<string, number>();
  const resolved: { item: InputItem; origin?: StoredItem; at: number; byReference?: boolean }[] = [];
  for (const [i, entry] of raw.entries()) {
    if (typeof entry !== "object" || entry === null) return { error: invalid(`Invalid 'input[${i}]'.`, `input[${i}]`) };
    const item = entry as Record<string, unknown>;
    const type = typeof item.type === "string" ? item.type : "message";
    if (type === "message") {
      if (typeof item.role !== "string" || !ROLES.has(item.role)) {
        return {
          error: invalid(
            `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
            `input[${i}].role`,
            "invalid_value",
          ),
        };
      }
      resolved.push({ item: { ...item, type: "message" }, at: i });
      continue;
    }
    if (type === "item_reference") {
      const id = String(item.id);
      const stored = storage.items.get(id);
      if (!stored) return { error: invalid(`Item with id '${id}' not found.`) };
      if (!stored.stored) {
        return {
          error: invalid(
            `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          ),
        };
      }
      resolved.push({ item: { ...stored.item }, origin: stored, at: i, byReference: true });
      continue;
    }
    if (type === "reasoning") {
      const encrypted = item.encrypted_content;
      if (typeof encrypted === "string") {
        const decrypted = decryptReasoning(encrypted);
        if (!decrypted || (item.id !== undefined && item.id !== decrypted.itemId)) {
          return {
            error: invalid(
              `The encrypted content for item ${String(item.id ?? `input[${i}]`)} could not be verified.`,
              null,
              "invalid_encrypted_content",
            ),
          };
        }
        resolved.push({
          item: { ...item, id: decrypted.itemId } as InputItem,
          origin: storage.items.get(decrypted.itemId),
          at: i,
        });
        continue;
      }
      const stored = typeof item.id === "string" ? storage.items.get(item.id) : undefined;
      if (!stored?.stored) {
        return {
          error: invalid(
            `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          ),
        };
      }
      resolved.push({ item: item as InputItem, origin: stored, at: i, byReference: true });
      continue;
    }
    if (type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string") {
        return {
          error: invalid(
            `Missing required parameter: 'input[${i}].${typeof item.call_id !== "string" ? "call_id" : typeof item.name !== "string" ? "name" : "arguments"}'.`,
            `input[${i}]`,
            "missing_required_parameter",
          ),
        };
      }
      const origin = typeof item.id === "string" ? storage.items.get(item.id) : undefined;
      resolved.push({ item: item as InputItem, origin, at: i });
      continue;
    }
    if (type === "function_call_output") {
      if (typeof item.call_id !== "string") {
        return {
          error: invalid(
            `Missing required parameter: 'input[${i}].call_id'.`,
            `input[${i}].call_id`,
            "missing_required_parameter",
          ),
        };
      }
      if (item.output === undefined) {
        return {
          error: invalid(
            `Missing required parameter: 'input[${i}].output'.`,
            `input[${i}].output`,
            "missing_required_parameter",
          ),
        };
      }
      resolved.push({ item: item as InputItem, at: i });
      continue;
    }
    return {
      error: invalid(
        `Invalid value: '${type}'. This fake supports message, item_reference, reasoning, function_call and function_call_output.`,
        `input[${i}].type`,
        "invalid_value",
      ),
    };
  }

  for (const [index, { item }] of resolved.entries()) {
    if (typeof item.id !== "string") continue;
    const earlier = seenIds.get(item.id);
    if (earlier !== undefined) {
      return {
        error: invalid(
          `Duplicate item found with id ${item.id}. Remove duplicate items from your input and try again.`,
        ),
      };
    }
    seenIds.set(item.id, index);
  }

  // Reasoning: followed by the item that followed it; items after a reasoning item come with it.
  for (const [index, { item, origin, byReference }] of resolved.entries()) {
    if (item.type === "reasoning" && origin && !byReference) {
      // Sent inline (encrypted): it must be followed by output of the assistant, not by a
      // person's message or the end of the input.
      const next = resolved[index + 1]?.item;
      const assistantOutput =
        next !== undefined &&
        (next.type === "function_call" ||
          next.type === "reasoning" ||
          (next.type === "message" && next.role === "assistant"));
      if (!assistantOutput) {
        return {
          error: invalid(
            `Item '${origin.item.id}' of type 'reasoning' was provided without its required following item.`,
          ),
        };
      }
    }
    if (item.type === "reasoning" && origin && byReference) {
      const response = storage.responses.get(origin.responseId);
      const following = response?.output[origin.index + 1];
      const next = resolved[index + 1]?.item;
      const follows =
        following === undefined ||
        (next !== undefined &&
          (next.id === following.id ||
            (following.type === "function_call" &&
              next.type === "function_call" &&
              next.id === undefined &&
              next.call_id === following.call_id)));
      if (!follows) {
        return {
          error: invalid(
            `Item '${origin.item.id}' of type 'reasoning' was provided without its required following item.`,
          ),
        };
      }
    }
    if (item.type !== "reasoning" && typeof item.id === "string" && origin) {
      const response = storage.responses.get(origin.responseId);
      const reasoning = response?.output
        .slice(0, origin.index)
        .reverse()
        .find((candidate) => candidate.type === "reasoning");
      if (reasoning && !seenIds.has(reasoning.id)) {
        return {
          error: invalid(
            `Item '${item.id}' of type '${item.type}' was provided without its required 'reasoning' item: '${reasoning.id}'.`,
          ),
        };
      }
      if (reasoning && (seenIds.get(reasoning.id) ?? Infinity) > index) {
        return {
          error: invalid(
            `Item '${item.id}' of type '${item.type}' was provided without its required 'reasoning' item: '${reasoning.id}'.`,
          ),
        };
      }
    }
  }

  // Tool calls and their outputs.
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  for (const { item } of resolved) {
    if (item.type === "function_call") {
      calls.set(String(item.call_id), 1);
    } else if (item.type === "function_call_output") {
      const id = String(item.call_id);
      if (!calls.has(id)) return { error: invalid(`No tool call found for function call output with call_id ${id}.`) };
      answered.add(id);
    }
  }
  for (const id of calls.keys()) {
    if (!answered.has(id)) return { error: invalid(`No tool output found for function call ${id}.`) };
  }
  return null;
}

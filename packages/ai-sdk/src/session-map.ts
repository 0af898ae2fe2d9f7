/** Where a transport remembers the hitl-kit session of each chat id. */
export interface SessionMap {
  /** The session id stored for the chat, or `undefined` when the chat has none yet. */
  get(chatId: string): string | undefined | Promise<string | undefined>;
  /** Stores the session the transport created for the chat. */
  set(chatId: string, sessionId: string): void | Promise<void>;
}

/** A session map in memory: for tests, servers, and chats that need not survive a reload. */
export function memorySessionMap(): SessionMap {
  const map = new Map<string, string>();
  return { get: (chatId) => map.get(chatId), set: (chatId, sessionId) => void map.set(chatId, sessionId) };
}

/** The default: `localStorage` where there is one (keyed by the handler's url), memory elsewhere. */
export function storedSessionMap(url: string): SessionMap {
  const storage = usableLocalStorage();
  if (!storage) return memorySessionMap();
  const key = (chatId: string) => `hitl-kit:ai-sdk:${url}:${chatId}`;
  return {
    get: (chatId) => storage.getItem(key(chatId)) ?? undefined,
    set: (chatId, sessionId) => storage.setItem(key(chatId), sessionId),
  };
}

/** `localStorage` when it works: absent on servers, and a Node without a storage file may throw on use. */
function usableLocalStorage(): Storage | undefined {
  try {
    const storage = globalThis.localStorage as Storage | undefined;
    storage?.getItem("hitl-kit:ai-sdk:probe");
    return storage;
  } catch {
    return undefined;
  }
}

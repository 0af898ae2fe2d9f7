import { ProtocolError } from "@hitl-kit/protocol";

/** What a request does, as `authorize` is told. */
export type SessionAction = "list" | "create" | "read" | "stream" | "message" | "respond" | "cancel" | "delete";

/** What a request addresses: an action, and the session for all but `list` and `create`. */
export interface Route {
  action: SessionAction;
  sessionId?: string;
  /** A `read` of which messages the session took under their keys (`GET /sessions/:id/messages`), not of its snapshot. */
  taken?: true;
}

const sessionRoutes: Record<string, Partial<Record<string, SessionAction>>> = {
  "": { GET: "read", DELETE: "delete" },
  "/events": { GET: "stream" },
  // GET: which messages the session took under their keys (a read, as `authorize` is told).
  "/messages": { POST: "message", GET: "read" },
  "/responses": { POST: "respond" },
  "/cancel": { POST: "cancel" },
};

/** The route a path and method address. @throws `not_found`, `method_not_allowed`, or `bad_request` for bad percent-encoding */
export function matchRoute(path: string, method: string, base = ""): Route {
  if (path === "/sessions") {
    if (method === "GET") return { action: "list" };
    if (method === "POST") return { action: "create" };
    throw methodNotAllowed(method, ["GET", "HEAD", "POST"]);
  }
  const match = /^\/sessions\/([^/]+)(\/[a-z]+)?$/.exec(path);
  const routes = match && sessionRoutes[match[2] ?? ""];
  if (!match || !routes) {
    throw new ProtocolError("not_found", `No route ${method} ${base}${path}; hitl-kit serves ${base}/sessions.`);
  }
  const action = routes[method];
  if (!action)
    throw methodNotAllowed(
      method,
      Object.keys(routes).flatMap((name) => (name === "GET" ? ["GET", "HEAD"] : [name])),
    );
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(match[1]!);
  } catch {
    throw new ProtocolError("bad_request", `The session id in ${path} is not valid percent-encoding.`);
  }
  return { action, sessionId, ...(match[2] === "/messages" && action === "read" ? { taken: true as const } : {}) };
}

function methodNotAllowed(method: string, allowed: string[]): ProtocolError {
  return new ProtocolError("method_not_allowed", `${method} is not allowed here; use ${allowed.join(" or ")}.`, {
    allow: allowed,
  });
}

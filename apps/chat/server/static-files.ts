import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
};

/**
 * Serves a built single-page app from `root`: files with their content type (hashed
 * `/assets/` cached for a year), `index.html` for any other path without an extension
 * (the SPA fallback), and 404 for a missing file that has one.
 * @example
 * const files = staticFiles(fileURLToPath(new URL("../dist", import.meta.url)));
 * const response = await files(request);
 */
export function staticFiles(root: string) {
  const base = normalize(root);
  return async function serveFile(request: Request): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
    }
    const pathname = safeDecode(new URL(request.url).pathname);
    const path = pathname === undefined ? undefined : normalize(join(base, pathname));
    if (path === undefined || (path !== base && !path.startsWith(base + sep))) return text(400, "Bad path");
    const found = await fileAt(path);
    if (found) return fileResponse(request, found, pathname!.startsWith("/assets/"));
    if (extname(pathname!) !== "") return text(404, `Not found: ${pathname}`);
    const index = await fileAt(join(base, "index.html"));
    if (!index) return text(503, "The app is not built: run `npm run build -w @hitl-kit/chat` (npm start does).");
    return fileResponse(request, index, false);
  };
}

async function fileAt(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isFile()) return path;
  if (info?.isDirectory()) return fileAt(join(path, "index.html"));
  return undefined;
}

async function fileResponse(request: Request, path: string, immutable: boolean): Promise<Response> {
  const body = await readFile(path);
  const headers = {
    "content-type": contentTypes[extname(path).toLowerCase()] ?? "application/octet-stream",
    "content-length": String(body.byteLength),
    "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
    "x-content-type-options": "nosniff",
  };
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
}

function safeDecode(pathname: string): string | undefined {
  try {
    const decoded = decodeURIComponent(pathname);
    return decoded.includes("\0") ? undefined : decoded;
  } catch {
    return undefined;
  }
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

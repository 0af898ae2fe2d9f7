import { fileURLToPath } from "node:url";
import { ConfigError, type ModelChoice, modelFromEnv } from "./model-from-env.js";

/** Where the demo's folders are, whatever the working directory. */
export const appDir = fileURLToPath(new URL("..", import.meta.url));

/** The demo server's settings, read from the environment. */
export interface ChatConfig {
  port: number;
  host: string;
  /** The folder of the SQLite store. */
  dataDir: string;
  /** A PostgreSQL URL: the store is Postgres (several instances may share it) instead of SQLite. */
  databaseUrl: string | undefined;
  /** Milliseconds after which parked requests expire; `undefined` never. */
  expireAfterMs: number | undefined;
  /** Behind a reverse proxy: honour its X-Forwarded-Proto, -Host and -For. */
  trustProxy: boolean;
  model: ModelChoice;
}

/**
 * Reads `PORT` (3000), `HOST` (127.0.0.1), `HITL_DATA_DIR` (apps/chat/.data), `DATABASE_URL`
 * (unset: SQLite in the data folder),
 * `HITL_EXPIRE_AFTER_MS` (unset: never), `HITL_TRUST_PROXY` (`1` behind a reverse proxy) and the
 * model variables (see {@link modelFromEnv}).
 * @throws {ConfigError} naming the variable that is wrong
 */
export function readChatConfig(env: Record<string, string | undefined>): ChatConfig {
  return {
    port: wholeNumber(env, "PORT", 3000),
    host: env.HOST?.trim() || "127.0.0.1",
    dataDir: env.HITL_DATA_DIR?.trim() || fileURLToPath(new URL("../.data", import.meta.url)),
    databaseUrl: databaseUrl(env),
    expireAfterMs: env.HITL_EXPIRE_AFTER_MS?.trim() ? wholeNumber(env, "HITL_EXPIRE_AFTER_MS", 0) : undefined,
    trustProxy: flag(env, "HITL_TRUST_PROXY"),
    model: modelFromEnv(env),
  };
}

/**
 * Where the demo keeps its sessions, for its start line: the SQLite folder, or the
 * PostgreSQL server and database of `DATABASE_URL` (without its user or password).
 */
export function storeLabel(config: Pick<ChatConfig, "dataDir" | "databaseUrl">): string {
  if (!config.databaseUrl) return config.dataDir;
  const url = new URL(config.databaseUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  return url.host ? `PostgreSQL at ${url.host}/${database}` : `PostgreSQL on its Unix socket, database ${database}`;
}

function databaseUrl(env: Record<string, string | undefined>): string | undefined {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(`DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/db), not "${raw}".`);
  }
  return raw;
}

function wholeNumber(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new ConfigError(`${name} must be a whole number, not "${raw}".`);
  return value;
}

function flag(env: Record<string, string | undefined>, name: string): boolean {
  const raw = env[name]?.trim() ?? "";
  if (raw === "" || raw === "0") return false;
  if (raw === "1") return true;
  throw new ConfigError(`${name} must be 1 or 0, not "${raw}".`);
}

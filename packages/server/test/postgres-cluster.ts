import { execFile, execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Where Debian's PostgreSQL 15 keeps `initdb`, `pg_ctl` and `postgres`. */
export const postgresBin = process.env.HITL_POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

/**
 * Whether the tests can start a PostgreSQL server here. Without its binaries the Postgres
 * tests are skipped with one loud line — except under `CI=true`, where that fails the run.
 */
export const postgresAvailable: boolean = (() => {
  if (existsSync(join(postgresBin, "initdb"))) return true;
  const line = `PostgreSQL tests SKIPPED: no ${join(postgresBin, "initdb")} (apt-get install postgresql, or set HITL_POSTGRES_BIN)`;
  if (process.env.CI === "true") throw new Error(`${line}; CI=true needs them.`);
  console.warn(`\n*** ${line} ***\n`);
  return false;
})();

/** A throwaway PostgreSQL cluster on a loopback port, in a temporary folder removed by `stop`. */
export interface PostgresCluster {
  /** The `postgres` database's URL. */
  url: string;
  port: number;
  /** Creates an empty database and answers its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server at once, as a crash does, keeping its data: connections drop, and new ones are refused. */
  halt(): void;
  /** Starts the halted server again, on the same port. */
  resume(): void;
  /**
   * Stops the server at once and removes its folder, without holding the event loop meanwhile.
   * A stop that takes longer than a few seconds prints the end of the server's log first.
   */
  stop(): Promise<void>;
}

let databases = 0;

const asRoot = process.getuid?.() === 0;

/** A new temporary folder, owned by the `postgres` user when run as root (`initdb` and `postgres` refuse root). */
function folderForPostgres(prefix: string): string {
  const dir = mkdtempSync(prefix);
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** Runs one of PostgreSQL's programs in `dir` (as the `postgres` user when run as root); a failure throws what it printed. */
function runPostgres(binary: string, args: string[], dir: string): void {
  const command = asRoot ? "runuser" : join(postgresBin, binary);
  const argv = asRoot ? ["-u", "postgres", "--", join(postgresBin, binary), ...args] : args;
  const result = spawnSync(command, argv, { encoding: "utf8", cwd: dir });
  if (result.status !== 0) {
    throw new Error(`${binary} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * A data folder `initdb` made, once per machine and PostgreSQL build: each cluster starts
 * from a copy of it, which takes a fifth of the time and a quarter of the CPU of its own
 * `initdb`. Made in a folder of its own and renamed when complete, so files starting
 * clusters in parallel never copy half of one.
 */
function templateData(): string {
  const args = ["-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"];
  const built = statSync(join(postgresBin, "postgres"));
  const key = createHash("sha256").update(`${postgresBin} ${built.size} ${built.mtimeMs} ${args.join(" ")}`);
  const home = join(tmpdir(), `hitl-kit-pg-template-${key.digest("hex").slice(0, 12)}`);
  if (existsSync(home)) return join(home, "data");
  const staging = folderForPostgres(`${home}-staging-`);
  runPostgres("initdb", ["-D", join(staging, "data"), ...args], staging);
  try {
    renameSync(staging, home);
  } catch (error) {
    // Another file made the same template first: use its folder.
    if (!existsSync(home)) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  return join(home, "data");
}

/**
 * Starts a cluster: a copy of the template data folder (`initdb`'s, made once) in a
 * temporary folder, then `pg_ctl start` on a free loopback port with its socket in that
 * folder. Durability settings are off: the tests crash processes, not machines.
 */
export async function startPostgres(settings: Record<string, string> = {}): Promise<PostgresCluster> {
  const dir = folderForPostgres(join(tmpdir(), "hitl-kit-pg-"));
  const data = join(dir, "data");
  const run = (binary: string, args: string[]) => runPostgres(binary, args, dir);
  const port = await freePort();
  const pgCtlStop = [
    ...(asRoot ? ["-u", "postgres", "--", join(postgresBin, "pg_ctl")] : []),
    ...["-D", data, "-m", "immediate", "-w", "stop"],
  ];
  const pgCtl = asRoot ? "runuser" : join(postgresBin, "pg_ctl");
  const halt = () => {
    spawnSync(pgCtl, pgCtlStop);
  };
  const removeNow = () => {
    halt();
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", removeNow);
  const stop = async () => {
    process.off("exit", removeNow);
    const started = performance.now();
    await new Promise<void>((resolve) => execFile(pgCtl, pgCtlStop, () => resolve()));
    const took = performance.now() - started;
    if (took > 3_000) {
      const log = existsSync(join(dir, "server.log")) ? readFileSync(join(dir, "server.log"), "utf8") : "";
      console.warn(`PostgreSQL took ${Math.round(took)} ms to stop; the end of its log:\n${log.slice(-4_000)}`);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const options = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: dir,
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    max_connections: "300",
    ...settings,
  };
  const flags = [`-p ${port}`, ...Object.entries(options).map(([key, value]) => `-c ${key}=${value}`)].join(" ");
  const start = () => run("pg_ctl", ["-D", data, "-o", flags, "-l", join(dir, "server.log"), "-w", "start"]);
  try {
    // As its owner, keeping the modes PostgreSQL insists on (the folder 0700).
    execFileSync(asRoot ? "runuser" : "cp", [
      ...(asRoot ? ["-u", "postgres", "--", "cp"] : []),
      "-a",
      templateData(),
      data,
    ]);
    start();
  } catch (error) {
    process.off("exit", removeNow);
    removeNow();
    throw error;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase() {
      const name = `hitl_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    halt,
    resume: start,
    stop,
  };
}

/** A port nothing listens on now, on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

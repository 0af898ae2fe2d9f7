import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type PostgresCluster } from "./postgres-cluster.js";

/** Where Debian's `pgbouncer` package puts its binary. */
export const pgbouncerBin = process.env.HITL_PGBOUNCER_BIN ?? "/usr/sbin/pgbouncer";

/**
 * Whether the tests can start a PgBouncer here. Without it the pooler tests are skipped with
 * one loud line — except under `CI=true`, where that fails the run.
 */
export const pgbouncerAvailable: boolean = (() => {
  if (existsSync(pgbouncerBin)) return true;
  const line = `PgBouncer tests SKIPPED: no ${pgbouncerBin} (apt-get install pgbouncer, or set HITL_PGBOUNCER_BIN)`;
  if (process.env.CI === "true") throw new Error(`${line}; CI=true needs it.`);
  console.warn(`\n*** ${line} ***\n`);
  return false;
})();

/** A PgBouncer in front of a throwaway cluster, on a loopback port; `stop` ends it and removes its folder. */
export interface Pgbouncer {
  /** `url` (a database of the cluster) through the pooler instead. */
  via(url: string): string;
  stop(): void;
}

/**
 * Starts PgBouncer (as the `postgres` user when run as root) with its own config, pid and
 * log files in a temporary folder, pooling every database of `cluster` in `mode`.
 */
export async function startPgbouncer(cluster: PostgresCluster, mode: "session" | "transaction"): Promise<Pgbouncer> {
  const dir = mkdtempSync(join(tmpdir(), "hitl-kit-pgbouncer-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  const pidfile = join(dir, "pgbouncer.pid");
  const config = join(dir, "pgbouncer.ini");
  writeFileSync(
    config,
    [
      "[databases]",
      `* = host=127.0.0.1 port=${cluster.port} user=postgres`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      `pool_mode = ${mode}`,
      "default_pool_size = 60",
      "max_client_conn = 500",
      "ignore_startup_parameters = extra_float_digits,options",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      `pidfile = ${pidfile}`,
      "",
    ].join("\n"),
  );
  const stop = () => {
    if (existsSync(pidfile)) {
      const pid = Number(readFileSync(pidfile, "utf8").trim());
      try {
        process.kill(pid, "SIGINT");
      } catch {
        // gone already
      }
    }
    rmSync(dir, { recursive: true, force: true });
    process.off("exit", stop);
  };
  process.on("exit", stop);
  const result = spawnSync(
    asRoot ? "runuser" : pgbouncerBin,
    [...(asRoot ? ["-u", "postgres", "--", pgbouncerBin] : []), "-d", config],
    { encoding: "utf8", cwd: dir },
  );
  if (result.status !== 0) {
    stop();
    throw new Error(`pgbouncer -d failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  await listening(port).catch((error: unknown) => {
    stop();
    throw error;
  });
  return { via: (url) => url.replace(`:${cluster.port}/`, `:${port}/`), stop };
}

/** Resolves once something accepts connections on the loopback port (within 10 s). */
async function listening(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`pgbouncer did not listen on 127.0.0.1:${port}`);
}

import { afterAll, beforeAll } from "vitest";
import { type PostgresCluster, postgresAvailable, startPostgres } from "./postgres-cluster.js";

/**
 * A throwaway cluster and database for one test file, where PostgreSQL is installed:
 * started before the file's tests and removed after. `url()` is the database's URL once
 * the tests run; `schema()` names a fresh schema (`<prefix>_1`, `_2`, …) for one store.
 */
export function throwawayDatabase(prefix: string) {
  let cluster: PostgresCluster | undefined;
  let url = "";
  let schemas = 0;
  if (postgresAvailable) {
    beforeAll(async () => {
      cluster = await startPostgres();
      url = await cluster.createDatabase();
    }, 60_000);
    afterAll(() => cluster?.stop(), 60_000);
  }
  return { url: () => url, schema: () => `${prefix}_${++schemas}` };
}

import Database from "better-sqlite3";
import { openFailure } from "./sqlite-errors.js";
import { migrate, schema } from "./sqlite-schema.js";
import type { SqliteStoreOptions } from "./sqlite-store.js";

/**
 * Opens the file in WAL mode with the store's settings, its schema created or brought up to
 * date, and checks that it may be written.
 */
export function openDatabase(path: string, options: SqliteStoreOptions): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw openFailure(error, path);
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("busy_timeout = 5000");
    db.pragma("temp_store = MEMORY");
    db.exec(schema);
    migrate(db, path);
    checkWritable(db);
    return db;
  } catch (error) {
    db.close();
    throw openFailure(error, path);
  }
}

/**
 * Throws unless the connection may write the file. SQLite opens a file it may not write
 * (its mode, a read-only mount) read-only without a word, and a file already up to date
 * needs no write to open: the store would start as if all was well, and fail every write.
 * A write in a transaction that is rolled back asks SQLite itself, and leaves nothing.
 */
function checkWritable(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  db.exec("BEGIN IMMEDIATE");
  try {
    db.pragma(`user_version = ${version}`);
  } finally {
    if (db.inTransaction) db.exec("ROLLBACK");
  }
}

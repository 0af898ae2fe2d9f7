/**
 * Points `node_modules/better-sqlite3` at the major this Node needs: 12 on Node 20 (13 is
 * built for Node-API 10 and crashes there), 13 on Node 22 and 24 (12.x aborts the process
 * on Node 24.19+ when a statement is garbage-collected). npm cannot pick a version by Node,
 * so the workspace installs both — 12 as `better-sqlite3`, 13 as `better-sqlite3-13` — and
 * `npm install` runs this after it (`postinstall`). `.ci/unit-tests-on-node` runs it with
 * `13` to test Node 22 and 24 from an install made on Node 20, and without when it ends.
 *
 *     node scripts/pick-better-sqlite3.mjs        # the major for this Node
 *     node scripts/pick-better-sqlite3.mjs 13     # or the one named
 */
import { existsSync, lstatSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";

const modules = fileURLToPath(new URL("../node_modules/", import.meta.url));
const linked = `${modules}better-sqlite3`;
const twelve = `${modules}.better-sqlite3-12`;
const thirteen = `${modules}better-sqlite3-13`;

const asked = process.argv[2] ?? (Number(process.versions.node.split(".")[0]) >= 22 ? "13" : "12");
if (asked !== "12" && asked !== "13") {
  console.error(`pick-better-sqlite3: the major is 12 or 13, not ${asked}.`);
  process.exit(2);
}
const isLink = (path) => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

if (asked === "13") {
  if (!existsSync(thirteen)) {
    console.error("pick-better-sqlite3: node_modules/better-sqlite3-13 is missing; run npm install.");
    process.exit(1);
  }
  if (!isLink(linked)) {
    // A later `npm install` puts 12 back in place: the copy set aside before is stale.
    if (existsSync(linked)) {
      rmSync(twelve, { recursive: true, force: true });
      renameSync(linked, twelve);
    }
    symlinkSync("better-sqlite3-13", linked, "dir");
  }
} else if (isLink(linked)) {
  rmSync(linked);
  if (existsSync(twelve)) renameSync(twelve, linked);
}
if (!existsSync(linked)) {
  console.error(`pick-better-sqlite3: no better-sqlite3 ${asked} in node_modules; run npm install.`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(`${linked}/package.json`, "utf8"));
console.log(`better-sqlite3 ${version} for Node ${process.versions.node}`);

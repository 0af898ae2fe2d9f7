// `npm test`: the lint, then the typecheck beside every Vitest project but `types` (whose
// `*.test-d.ts` files the typecheck checks with the same tsconfig). Run before Vitest, the
// typecheck kept one core busy for half a minute and left the other idle; beside it, they
// share both. Its verdict is printed when it ends; the exit code is the first failure's.
import { spawn } from "node:child_process";

/** Runs a command to its end: its exit code, and what it printed when `quiet`. */
function run(command, args, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
    child.once("error", (error) => resolve({ code: 1, output: String(error) }));
    child.once("exit", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const lint = await run("npm", ["run", "--silent", "lint"]);
if (lint.code !== 0) process.exit(lint.code);

console.log("typecheck (npm run typecheck) runs beside Vitest; its result follows when it ends.");
const typecheck = run("npm", ["run", "--silent", "typecheck"], { quiet: true }).then((result) => {
  console.log(result.code === 0 ? "\ntypecheck: no errors\n" : `\ntypecheck FAILED:\n${result.output}\n`);
  return result;
});
// Arguments (`npm test -- <filters>`) go to Vitest.
const vitest = run("npx", ["vitest", "run", "--project", "!types", ...process.argv.slice(2)]);
const results = await Promise.all([typecheck, vitest]);
process.exit(results.find((result) => result.code !== 0)?.code ?? 0);

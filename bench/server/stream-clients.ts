/**
 * The client side of the open-streams benchmark, in its own process so its memory is not
 * the server's: opens one SSE stream per session id, tells the parent when all are open,
 * and on request reports how many events each stream delivered.
 */
import { get } from "node:http";

const [base, idList] = [process.argv[2]!, process.argv[3]!];
const ids = idList.split(",");
const counts = new Map<string, number>(ids.map((id) => [id, 0]));
const requests: ReturnType<typeof get>[] = [];

await Promise.all(
  ids.map(
    (id) =>
      new Promise<void>((resolve, reject) => {
        const request = get(`${base}/sessions/${id}/events`, { agent: false }, (response) => {
          response.setEncoding("utf8");
          let carry = "";
          response.on("data", (text: string) => {
            const frames = (carry + text).split("\n\n");
            carry = frames.pop() ?? "";
            const events = frames.filter((frame) => frame.includes("\ndata: ")).length;
            counts.set(id, counts.get(id)! + events);
          });
          resolve();
        });
        request.on("error", reject);
        requests.push(request);
      }),
  ),
);
process.send!({ type: "open" });
process.on("message", (message: { type: string }) => {
  if (message.type !== "report") return;
  process.send!({ type: "counts", counts: Object.fromEntries(counts) });
  for (const request of requests) request.destroy();
  setTimeout(() => process.exit(0), 50);
});

// Renders the README's <Chat> as a Next.js or Remix page would, on the server, and reports
// what that cost: it must touch no `window` and send no request.
import { renderToString } from "react-dom/server";
import { Chat } from "./chat.js";

let requests = 0;
globalThis.fetch = async () => {
  requests++;
  throw new Error("A request was sent while rendering on the server.");
};

const html = renderToString(<Chat sessionId="ses_from_the_page" />);
await new Promise((resolve) => setTimeout(resolve, 100));
console.log(JSON.stringify({ html, requests, window: typeof window }));

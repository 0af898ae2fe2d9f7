import { Hono } from "hono";
import { describe, expectTypeOf, it } from "vitest";
import { type Served, serve, toNodeHandler } from "../src/index.js";

describe("serve and toNodeHandler", () => {
  it("take a whole Hono app's fetch, whose answer may come synchronously", () => {
    const app = new Hono();
    app.get("/health", (c) => c.text("ok"));
    expectTypeOf(serve(app.fetch, { port: 0 })).toEqualTypeOf<Promise<Served>>();
    toNodeHandler(app.fetch);
    toNodeHandler(() => new Response("ok"));
  });
});

import "../commit-hook.js";
import { go, prepare, teardown } from "../harness.js";

/** The page's API for the Playwright runner (streaming-browser.ts). */
(window as unknown as { bench: unknown }).bench = { prepare, go, teardown };

import { FRAME_MS } from "./dom-env.js";

/** What one render run measured, printed by a harness as one line of JSON. */
export interface RenderResult {
  ms: number;
  renders: number;
  peakHeapMiB: number;
  /** The longest time a delivered delta waited before it was in the DOM. */
  maxLagMs: number;
  maxLagFrames: number;
}

const words = ["the ", "cat ", "sat ", "on ", "a ", "warm ", "mat ", "and ", "hummed ", "softly "];

/** The `index`th delta of a benchmark message: one short word. */
export const deltaAt = (index: number): string => words[index % words.length]!;

/** The full text of `count` deltas. */
export const textOf = (count: number): string => Array.from({ length: count }, (_, i) => deltaAt(i)).join("");

/**
 * Watches an element until it holds the whole text: records when each delta was delivered
 * as bytes, when it reached the DOM (by MutationObserver), the peak heap and the time taken.
 */
export class RenderProbe {
  renders = 0;
  readonly #ends: number[] = [];
  readonly #delivered: number[] = [];
  #rendered = 0;
  #maxLag = 0;
  #peakHeap = 0;
  #start = 0;

  constructor(readonly count: number) {
    let length = 0;
    for (let i = 0; i < count; i++) {
      length += deltaAt(i).length;
      this.#ends.push(length);
    }
  }

  /** Marks the moment the person sends: the clock starts. */
  start(): void {
    this.#start = performance.now();
  }

  /** Records that the bytes of delta `index` were handed to the client. */
  delivered(index: number): void {
    this.#delivered[index] = performance.now();
  }

  /** Resolves with the result once `element`'s text is complete. */
  watch(element: HTMLElement): Promise<RenderResult> {
    const expected = this.#ends.at(-1) ?? 0;
    return new Promise((resolve) => {
      const sampler = setInterval(() => this.#sampleHeap(), 10);
      const check = () => {
        const length = element.textContent?.length ?? 0;
        const time = performance.now();
        this.#sampleHeap();
        while (this.#rendered < this.count && this.#ends[this.#rendered]! <= length) {
          const delivered = this.#delivered[this.#rendered];
          if (delivered !== undefined) this.#maxLag = Math.max(this.#maxLag, time - delivered);
          this.#rendered++;
        }
        if (length < expected) return;
        observer.disconnect();
        clearInterval(sampler);
        resolve({
          ms: time - this.#start,
          renders: this.renders,
          peakHeapMiB: this.#peakHeap / 2 ** 20,
          maxLagMs: this.#maxLag,
          maxLagFrames: this.#maxLag / FRAME_MS,
        });
      };
      const observer = new MutationObserver(check);
      observer.observe(element, { subtree: true, childList: true, characterData: true });
    });
  }

  #sampleHeap(): void {
    this.#peakHeap = Math.max(this.#peakHeap, process.memoryUsage().heapUsed);
  }
}

/** A `ReadableStream` of SSE bytes that enqueues one frame per macrotask, reporting each one. */
export function frameStream(
  frames: readonly string[],
  onFrame: (index: number) => void,
  keepOpen = false,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (index >= frames.length) {
        if (!keepOpen) return controller.close();
        return new Promise(() => {}); // a live stream stays open until the reader cancels
      }
      onFrame(index);
      controller.enqueue(encoder.encode(frames[index++]!));
    },
  });
}

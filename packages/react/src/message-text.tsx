"use client";

import { memo, useRef } from "react";

/** A text cut into finished blocks and the tail still being written; see {@link splitTextBlocks}. */
export interface TextBlocks {
  /** The whole text. */
  readonly text: string;
  /** The finished blocks, each ending with the blank line that closed it; joined with the tail they are `text`. */
  readonly finished: readonly string[];
  /** Where the tail starts in `text`. */
  readonly tailStart: number;
}

const emptyBlocks: TextBlocks = { text: "", finished: [], tailStart: 0 };

/**
 * Cuts text into blocks at blank lines (`\n\n`): every block but the last is finished, and
 * the last, the tail, is what a stream is still writing. Given the blocks of the text before
 * (when the new text extends it), it reuses them and searches only the tail, and keeps the
 * same `finished` array until a block finishes, so a growing message costs the tail's length,
 * not the whole text's.
 */
export function splitTextBlocks(text: string, previous: TextBlocks = emptyBlocks): TextBlocks {
  if (text === previous.text) return previous;
  const extends_ = text.length > previous.text.length && text.startsWith(previous.text);
  const base = extends_ ? previous : emptyBlocks;
  let finished = base.finished;
  let tailStart = base.tailStart;
  // A blank line may straddle the old end, or have ended the old text unfinished.
  let from = Math.max(tailStart, base.text.length - 2);
  for (let at = text.indexOf("\n\n", from); at !== -1; at = text.indexOf("\n\n", from)) {
    let end = at + 2;
    while (text.charCodeAt(end) === 10) end++;
    if (end === text.length) break; // the blank line may go on: the block is not finished yet
    if (finished === base.finished) finished = [...finished];
    (finished as string[]).push(text.slice(tailStart, end));
    tailStart = end;
    from = end;
  }
  return { text, finished, tailStart };
}

/** Props of {@link MessageText}. */
export interface MessageTextProps {
  /** The message's text, growing while it streams. */
  text: string;
  /** The class of the element around the blocks. */
  className?: string;
  /**
   * Whether the message is still being written (`message.status === "streaming"`). While it
   * is, the text is marked `aria-busy`, so a screen reader in a live region around it waits
   * for the finished text instead of re-reading the reply from the start at every delta.
   * `false` by default.
   */
  streaming?: boolean;
}

const FinishedBlock = memo(function FinishedBlock({ text }: { text: string }) {
  return <div data-block="finished">{text}</div>;
});

/**
 * The finished blocks, as one memoized list: `splitTextBlocks` keeps the same array until a
 * block finishes, so a delta to the tail skips them in one comparison instead of one per block.
 */
const FinishedBlocks = memo(function FinishedBlocks({ blocks }: { blocks: readonly string[] }) {
  return blocks.map((block, index) => (
    // The blocks only ever grow at the end: the index is a stable key.
    // biome-ignore lint/suspicious/noArrayIndexKey: blocks are append-only
    <FinishedBlock key={index} text={block} />
  ));
});

/**
 * Shows a streaming text at a cost that does not grow with it: the text is cut into blocks
 * at blank lines, each its own block element. A finished block is memoized and keeps its DOM
 * node, so a new delta changes only the tail's text node and the browser lays out only the
 * tail, not the whole message. The text is shown as text (never HTML); style the element
 * with `white-space: pre-wrap` to keep the line breaks. Pass `streaming` while the message
 * is being written: the text is `aria-busy` until it is complete.
 * @example
 * <MessageText className="chat-message__text" text={part.text} streaming={message.status === "streaming"} />
 */
export const MessageText = memo(function MessageText({ text, className, streaming = false }: MessageTextProps) {
  const blocks = useRef<TextBlocks>(emptyBlocks);
  // A render thrown away by React leaves a ref ahead of the text: splitTextBlocks checks it.
  const current = splitTextBlocks(text, blocks.current);
  blocks.current = current;
  return (
    <div className={className} aria-busy={streaming || undefined}>
      <FinishedBlocks blocks={current.finished} />
      <div data-block="tail">{text.slice(current.tailStart)}</div>
    </div>
  );
});

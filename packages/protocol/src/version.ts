/**
 * The wire protocol version this package speaks. Version 2 writes events as compact SSE
 * frames (`eventFrameEncoder`): what the stream already says is left out of each event's
 * data; its decoder still reads version 1's whole events.
 */
export const PROTOCOL_VERSION = 2;

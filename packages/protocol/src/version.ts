/**
 * The wire protocol version this package speaks. Version 2 writes events as compact SSE
 * frames (`eventFrameEncoder`): what the stream already says is left out of each event's
 * data; its decoder still reads version 1's whole events.
 */
export const PROTOCOL_VERSION = 2;

/**
 * The response header in which a server says the protocol version it speaks, on every
 * answer of its handler (JSON answers, errors and the event stream): `hitl-protocol: 2`.
 * A client that finds a version newer than its own {@link PROTOCOL_VERSION} stops with
 * `client_outdated` instead of reading what it may misread; a missing header (an older
 * server, a proxy that strips it) or a version not newer goes on.
 */
export const PROTOCOL_VERSION_HEADER = "hitl-protocol";

/** The wire protocol version this package speaks. */
export const PROTOCOL_VERSION = 1;

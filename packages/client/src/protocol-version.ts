import { PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER } from "@hitl-kit/protocol";
import { ApiError } from "./api-error.js";

/**
 * The `client_outdated` error when `response` says (in its `hitl-protocol` header) that the
 * server speaks a newer wire protocol than this client, whose events and answers it may
 * misread; `undefined` when it speaks the same or an older one, or does not say (an older
 * server, or a proxy that strips the header), which go on as before. Its status is `0`,
 * whatever the answer's was: no retry can fix it, only a reload.
 */
export function outdatedClientError(response: Response): ApiError | undefined {
  const said = response.headers.get(PROTOCOL_VERSION_HEADER)?.trim();
  if (said === undefined || !/^\d{1,9}$/.test(said)) return undefined;
  const version = Number(said);
  if (version <= PROTOCOL_VERSION) return undefined;
  return new ApiError(
    "client_outdated",
    `This page is older than the server (wire protocol ${PROTOCOL_VERSION}, the server's ${version}): reload it.`,
    { status: 0, details: { serverVersion: version, clientVersion: PROTOCOL_VERSION } },
  );
}

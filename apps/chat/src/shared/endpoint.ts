import { createApiClient } from "@hitl-kit/client";

/** The client of the demo server's wire protocol, mounted at `/api/agent` (same origin as the app). */
export const agentApi = createApiClient({ url: "/api/agent" });

/** Where the demo's server serves the media library. */
export const mediaLibraryUrl = "/api/media";

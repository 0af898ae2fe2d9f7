import type { AgentEndpoint } from "@hitl-kit/react/query";

/** Where the demo's server mounts wire protocol v1 (same origin as the app). */
export const agentEndpoint: AgentEndpoint = { url: "/api/agent" };

/** Where the demo's server serves the media library. */
export const mediaLibraryUrl = "/api/media";

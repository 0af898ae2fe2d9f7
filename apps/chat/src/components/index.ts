export { ChatPanel, type ChatPanelProps } from "./chat-panel.js";
export { Composer, type ComposerProps } from "./composer.js";
export { ConnectionStatus, connectionLabel } from "./connection-status.js";
export { MessageItem, type MessageItemProps } from "./message-item.js";
export { SessionSidebar, type SessionSidebarProps } from "./session-sidebar.js";
export { Transcript, type TranscriptProps } from "./transcript.js";
export { useStickToBottom } from "./use-stick-to-bottom.js";
export { suggestions, Welcome } from "./welcome.js";

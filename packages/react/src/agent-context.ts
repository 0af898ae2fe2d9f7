"use client";

import type { AgentClient } from "@hitl-kit/client";
import { createContext } from "react";

/** The client an `<AgentProvider>` shares with the hooks and components below it. */
export const AgentContext = createContext<AgentClient | undefined>(undefined);

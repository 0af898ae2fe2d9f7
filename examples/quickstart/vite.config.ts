import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The UI and the API on one origin: Vite forwards /api to the hitl-kit server, in
// development (`vite`) and in a preview of the build (`vite preview`).
const api = { "/api/": process.env.HITL_API_URL ?? "http://127.0.0.1:3000" };

export default defineConfig({ plugins: [react()], server: { proxy: api }, preview: { proxy: api } });

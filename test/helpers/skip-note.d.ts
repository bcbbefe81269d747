/** Types of skip-note.js (plain JS so that the jest reporter can import it). */
export type Need = "bubblewrap" | "redis" | "podman" | "docker" | "registry" | "socat" | "pytest" | "cargo";
export declare const NEEDS: Record<Need, { tool: string; install: string }>;
export declare const SKIPPED_SUMMARY: unique symbol;
export declare function skipTitle(name: string, need: Need, why: string): string;
export declare function parseSkipTitle(title: string): { need: Need; why: string } | null;

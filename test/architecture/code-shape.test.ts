import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// What docs/architecture.md promises of src/ beyond its layering: no explicit `any` (lint's recommended rule refuses
// it; a disable comment would wave it through, so none may exist), `noUncheckedIndexedAccess` stays on, and only
// config/env.ts reads the environment.
const SRC = path.resolve("src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("the shape of src/", () => {
  it("no file waves an explicit any through with a disable comment", () => {
    const waving = sources(SRC).filter((f) => /eslint-disable[^\n]*no-explicit-any/.test(readFileSync(f, "utf8")));
    expect(waving.map((f) => path.relative(process.cwd(), f))).toEqual([]);
  });

  it("only src/config/env.ts reads process.env (everything else is handed the values it needs)", () => {
    const readers = sources(SRC).filter((f) => /\bprocess\.env\b/.test(readFileSync(f, "utf8")));
    expect(readers.map((f) => path.relative(process.cwd(), f))).toEqual([path.join("src", "config", "env.ts")]);
  });

  it("the compiler checks every indexed read (noUncheckedIndexedAccess) and lint bounds function length", () => {
    const tsconfig = JSON.parse(readFileSync("tsconfig.json", "utf8")) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions.noUncheckedIndexedAccess).toBe(true);
    expect(readFileSync("eslint.config.js", "utf8")).toMatch(/"max-lines-per-function": \["error", \{ max: 100 \}\]/);
  });
});

/**
 * jest transform: TypeScript to ESM with esbuild, file by file (tsconfig has `isolatedModules`, so no file needs
 * another to compile). Type-checking is `npm run typecheck`; this only strips types. It replaced ts-jest, which
 * built a TypeScript program per worker: on a clean CI machine that compile was a tenth of the suite's CPU.
 * Plain JS: it loads before any transform is set up.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { URL } from "node:url";
import { transformSync } from "esbuild";

const ESBUILD_VERSION = JSON.parse(
  readFileSync(new URL("../../node_modules/esbuild/package.json", import.meta.url), "utf8"),
).version;
const SELF = readFileSync(new URL(import.meta.url), "utf8");

function process(source, filename) {
  const { code, map } = transformSync(source, {
    loader: "ts",
    format: "esm",
    target: "node20",
    sourcemap: "external",
    sourcefile: filename,
    // Class fields as TypeScript's `useDefineForClassFields` default for ES2022 targets: define semantics.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: false } },
  });
  return { code, map };
}

export default {
  canInstrument: false,
  process,
  getCacheKey(source, filename) {
    return createHash("sha256")
      .update(ESBUILD_VERSION)
      .update("\0")
      .update(SELF)
      .update("\0")
      .update(filename)
      .update("\0")
      .update(source)
      .digest("hex");
  },
};

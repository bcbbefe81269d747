import { readFileSync } from "node:fs";

/**
 * The image's build stage runs `npm run build` on what it copied in. A file the build reads that the Dockerfile does
 * not copy breaks `docker build` only (nothing else builds in a bare directory), so check it here.
 */
describe("Dockerfile", () => {
  const dockerfile = readFileSync("Dockerfile", "utf8");
  const buildStage = dockerfile.split(/^FROM /m)[1] ?? "";
  const copied = [...buildStage.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) =>
    m[1]!.trim().split(/\s+/).slice(0, -1),
  );
  const covered = (file: string) => copied.some((c) => file === c || file.startsWith(`${c.replace(/\/$/, "")}/`));

  it("copies every file `npm run build` reads into the build stage before running it", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    const build = pkg.scripts["build"]!;
    const read = [...build.matchAll(/(?:-p |node )([\w./-]+)/g)].map((m) => m[1]!);
    expect(read).toEqual(expect.arrayContaining(["tsconfig.build.json", "scripts/bundle.mjs"]));
    // tsc's project extends tsconfig.json and compiles src/.
    for (const file of [...read, "tsconfig.json", "src/cli/main.ts"])
      expect({ file, copied: covered(file) }).toEqual({ file, copied: true });
    expect(buildStage.indexOf("RUN npm run build")).toBeGreaterThan(buildStage.lastIndexOf("\nCOPY "));
  });
});

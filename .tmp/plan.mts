import { readFile } from "node:fs/promises";
import { execSync } from "node:child_process";
import path from "node:path";
import { discoverChecks } from "../src/checks/discover/discover-checks.js";
const dir = process.argv[2]!;
const files = execSync("git ls-files", { cwd: dir }).toString().split("\n").filter(Boolean);
const plan = await discoverChecks({
  read: async (p: string) => readFile(path.join(dir, p), "utf8").catch(() => null),
  list: async (d: string) => [...new Set(files.filter((f) => f.startsWith(d ? `${d}/` : "")).map((f) => { const rest = f.slice(d ? d.length + 1 : 0); const i = rest.indexOf("/"); return i < 0 ? rest : rest.slice(0, i + 1); }))],
} as never);
console.log(JSON.stringify(plan, null, 1));

import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  CONTROL_MOUNT,
  RUNNER_SCRIPT,
  startContainerRunner,
  type ContainerRunner,
} from "../../src/exec/container-runner.js";

/**
 * The runner's control folder is writable from inside the container: a hostile command can swap its output file, or
 * the next request's script file, for a symbolic link to a host file. Here the runner's shell loop runs on the host
 * (the folder at its host path instead of the container's mount), which is exactly what the app sees of the folder.
 * A command finds the folder as a container's would: `$0` is its own script there.
 */
describe("the container's command runner and its control folder", () => {
  let root: string;
  let ctl: string;
  let hostSecret: string;
  let runner: ContainerRunner;
  const SECRET = "host-only-secret-0123456789";

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ctr-runner-"));
    ctl = path.join(root, "ctl");
    hostSecret = path.join(root, "app-key.pem");
    await mkdir(ctl);
    await writeFile(hostSecret, SECRET);
    runner = startContainerRunner(
      "/bin/sh",
      ["-c", RUNNER_SCRIPT.replaceAll(CONTROL_MOUNT, ctl)],
      { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      ctl,
    );
  });
  afterAll(async () => {
    runner.stop();
    await rm(root, { recursive: true, force: true });
  });

  const run = (script: string) => runner.run(script, { maxOutputBytes: 10_000 });

  it("runs a script and answers its output and exit code", async () => {
    const r = await run("echo hello; exit 3\n");
    expect(r.exitCode).toBe(3);
    expect(r.output).toBe("hello\n");
  });

  it("does not read a host file through an output file the command swapped for a link", async () => {
    const r = await run(`out="\${0%.sh}.out"; rm -f "$out"; ln -s '${hostSecret}' "$out"; exit 0\n`);
    expect(r.exitCode).toBe(0);
    expect(r.output).not.toContain(SECRET);
    expect(r.output).toContain("output not shown");
  });

  it("does not write through a link the command planted as the next request's script", async () => {
    // The runner numbers requests r1, r2, …: this command plants a link where the next one's script will go.
    const r = await run(
      `n=$(basename "$0" .sh); n=\${n#r}; ln -s '${hostSecret}' "$(dirname "$0")/r$((n + 1)).sh"; exit 0\n`,
    );
    expect(r.exitCode).toBe(0);
    const next = await run("echo next ran\n");
    expect(next.output).toBe("next ran\n");
    expect(await readFile(hostSecret, "utf8")).toBe(SECRET);
  });
});

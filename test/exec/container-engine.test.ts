import {
  cacheVolumeName,
  execArgs,
  globalArgs,
  listArgs,
  removeArgs,
  runArgs,
  type ContainerEngine,
} from "../../src/exec/container-engine.js";

const podman: ContainerEngine = {
  kind: "podman",
  runtime: "runc",
  cgroupManager: "cgroupfs",
  ulimits: ["nofile=1024:1024"],
  memory: "1g",
  cpus: "2",
  pids: 256,
};
const docker: ContainerEngine = {
  kind: "docker",
  socket: "unix:///var/run/docker.sock",
  ulimits: [],
  memory: "1g",
  cpus: "2",
  pids: 256,
};
const spec = {
  name: "aider-bot-1-ab",
  image: "python:3.12",
  checkout: "/w/job/checkout",
  gitDir: "/w/job/checkout/.git",
  cacheVolume: "aider-bot-cache-x",
  network: false,
  lifetimeS: 60,
  labels: { l: "1" },
};

describe("container engine arguments", () => {
  it("Podman: runtime and cgroup manager first; Docker: its socket", () => {
    expect(globalArgs(podman)).toEqual(["--runtime", "runc", "--cgroup-manager", "cgroupfs"]);
    expect(globalArgs(docker)).toEqual(["--host", "unix:///var/run/docker.sock"]);
    expect(globalArgs({ ...podman, registriesConf: "/etc/aider/registries.conf" })).toEqual([
      "--runtime",
      "runc",
      "--cgroup-manager",
      "cgroupfs",
      "--registries-conf",
      "/etc/aider/registries.conf",
    ]);
    expect(globalArgs({ ...podman, socket: "unix:///run/podman.sock", runtime: "", cgroupManager: "" })).toEqual([
      "--remote",
      "--url",
      "unix:///run/podman.sock",
    ]);
    // A bare socket path is given to the client as a unix:// URL; tcp:// and ssh:// pass as they are.
    expect(globalArgs({ ...docker, socket: "/var/run/docker.sock" })).toEqual([
      "--host",
      "unix:///var/run/docker.sock",
    ]);
    expect(globalArgs({ ...docker, socket: "tcp://127.0.0.1:2375" })).toEqual(["--host", "tcp://127.0.0.1:2375"]);
    expect(globalArgs({ ...docker, socket: undefined })).toEqual([]);
  });

  it("lists the app's containers by label in each client's template language", () => {
    const labels = { pid: "io.aider-bot.pid", host: "io.aider-bot.host" };
    expect(listArgs(docker, labels)).toEqual([
      "ps",
      "--all",
      "--filter",
      "label=io.aider-bot.pid",
      "--format",
      '{{.Names}} {{.Label "io.aider-bot.pid"}} {{.Label "io.aider-bot.host"}}',
    ]);
    expect(listArgs(podman, labels).at(-1)).toBe(
      '{{.Names}} {{index .Labels "io.aider-bot.pid"}} {{index .Labels "io.aider-bot.host"}}',
    );
  });

  it("mounts only the checkout (its .git read-only) and the cache volume, cuts the network and capabilities, sets the limits", () => {
    const args = runArgs(podman, spec);
    const pairs = (flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
    expect(pairs("--volume")).toEqual([
      "/w/job/checkout:/w/job/checkout:rw",
      "/w/job/checkout/.git:/w/job/checkout/.git:ro",
      "aider-bot-cache-x:/aider-cache:rw",
    ]);
    expect(pairs("--network")).toEqual(["none"]);
    expect(pairs("--memory")).toEqual(["1g"]);
    expect(pairs("--pids-limit")).toEqual(["256"]);
    expect(pairs("--cap-drop")).toEqual(["ALL"]);
    expect(pairs("--security-opt")).toEqual(["no-new-privileges"]);
    expect(pairs("--timeout")).toEqual(["60"]);
    expect(args).toContain("--rm");
    expect(args).not.toContain("--env");
    expect(args.slice(args.indexOf("python:3.12") - 2)).toEqual([
      "--entrypoint",
      "/bin/sh",
      "python:3.12",
      "-c",
      "read _ || exec sleep 2147483647",
    ]);
    expect(runArgs(docker, { ...spec, network: true })).not.toContain("--timeout");
    // The engine's default CPU weight unless the container's commands are background work.
    expect(args).not.toContain("--cpu-shares");
    const background = runArgs(podman, { ...spec, cpuShares: 110 });
    expect(background[background.indexOf("--cpu-shares") + 1]).toBe("110");
    expect(runArgs(docker, { ...spec, network: true })).not.toContain("--network");
  });

  it("passes only the given environment to a command, and removes at once", () => {
    expect(
      execArgs(spec, {
        argv: ["/bin/sh", "-c", "pytest"],
        cwd: "/w/job/checkout",
        env: { PIP_CACHE_DIR: "/aider-cache/pip" },
        input: false,
      }),
    ).toEqual([
      "exec",
      "--workdir",
      "/w/job/checkout",
      "--env",
      "PIP_CACHE_DIR=/aider-cache/pip",
      "aider-bot-1-ab",
      "/bin/sh",
      "-c",
      "pytest",
    ]);
    expect(removeArgs(podman, "n")).toEqual(["rm", "--force", "--time", "0", "n"]);
    expect(removeArgs(docker, "n")).toEqual(["rm", "--force", "n"]);
  });

  it("names one cache volume per repository, readable and safe", () => {
    expect(cacheVolumeName("Acme/Web App#fork-pr-3", "0123456789abcdef")).toBe(
      "aider-bot-cache-acme-web-app-fork-pr-3-0123456789",
    );
    expect(cacheVolumeName("../..", "0123456789abcdef")).toBe("aider-bot-cache-0123456789");
  });
});

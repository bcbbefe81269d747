import net from "node:net";
import { forwarderArgs, SANDBOX_PROXY_PORT } from "../../src/egress/sandbox-bridge.js";
import { createExec } from "../../src/exec/create-exec.js";
import { describeWith } from "../helpers/needs.js";

const exec = createExec({ sourceEnv: process.env });

/**
 * The sandbox's forwarder answers each request with the proxy's reply as it comes, often in two writes (headers, then
 * body). With Nagle's algorithm on its accepted connection the second write waits for the client's delayed ACK, about
 * 40 ms per request on a kept-alive tunnel: npm's hundreds of registry requests paid it one after another.
 */
describeWith(["socat"], "the sandbox's egress forwarder", () => {
  it("listens with TCP_NODELAY, which its accepted connections inherit", async () => {
    // socat says (at -d -d -d) which options it applies while it opens its listener; a port already taken makes it stop right after, so the
    // test needs no timing. The forwarder's port is moved to the taken one (3128 may be in use on this host).
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const [listen, ...rest] = forwarderArgs("/nonexistent/aider-egress.sock");
      expect(listen).toContain(`TCP-LISTEN:${SANDBOX_PROXY_PORT},`);
      const r = await exec.run({
        command: "socat",
        args: ["-d", "-d", "-d", listen!.replace(`TCP-LISTEN:${SANDBOX_PROXY_PORT},`, `TCP-LISTEN:${port},`), ...rest],
        cwd: "/",
        timeoutMs: 10_000,
      });
      expect(r.output).toMatch(/Address already in use/);
      expect(r.output).toMatch(/setting option "tcp-nodelay" to 1/);
    } finally {
      taken.close();
    }
  });
});

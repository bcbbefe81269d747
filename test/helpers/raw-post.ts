import net from "node:net";

/**
 * POST over a raw TCP socket, writing the body as `write` decides, and resolve with the status of the answer. A raw
 * socket, not http.request: the server answers and closes before the body is complete, and a client request left
 * half-written then fails on its own later — through nock's interceptor, when another test file in this worker
 * loaded nock, as an uncaught socket error that ends the whole test run.
 */
export function rawPost(
  url: string,
  head: Record<string, string>,
  write: (socket: net.Socket) => void,
): Promise<number> {
  const { port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let answer = "";
    let done = false;
    const finish = (status: number) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(status);
    };
    socket.on("data", (d: Buffer) => {
      answer += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (m) finish(Number(m[1]));
    });
    // The server may reset the connection while the body is still being sent: the answer, if any, already came.
    socket.on("error", () => finish(-1));
    socket.on("close", () => finish(-1));
    socket.on("connect", () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(head)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join("")}\r\n`,
      );
      write(socket);
    });
  });
}

import net from "node:net";

/** A POST whose body is sent in part and then held: the way a stranger ties up a server's body budget. */
export interface StalledPost {
  /** Resolves with the status the server answered (-1 when it closed the connection without one). */
  answer: Promise<number>;
  /** Resolves once all of `sent` has been handed to the kernel. */
  written: Promise<void>;
  close(): void;
}

/** Opens a raw socket, writes the request head and `sent`, then sends nothing more until closed. */
export function stalledPost(url: string, head: Record<string, string>, sent: Buffer): StalledPost {
  const { port, pathname } = new URL(url);
  const socket = net.connect(Number(port), "127.0.0.1");
  let answered = "";
  let resolveAnswer: (status: number) => void = () => undefined;
  const answer = new Promise<number>((resolve) => (resolveAnswer = resolve));
  socket.on("data", (d: Buffer) => {
    answered += d.toString("latin1");
    const m = /^HTTP\/1\.1 (\d{3})/.exec(answered);
    if (m) resolveAnswer(Number(m[1]));
  });
  socket.on("error", () => resolveAnswer(-1));
  socket.on("close", () => resolveAnswer(-1));
  const written = new Promise<void>((resolve) => {
    socket.on("connect", () => {
      const lines = Object.entries(head).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`POST ${pathname} HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join("")}\r\n`);
      socket.write(sent, () => resolve());
    });
    socket.on("close", () => resolve());
  });
  return { answer, written, close: () => socket.destroy() };
}

import type http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A model's own script: replies taken in order, then a standing reply for every later request (if any). */
export interface ModelRule<R> {
  replies?: R[];
  standing?: R;
}

/** The per-model scripts every fake model server keeps (`forModel`), and the next reply one of them gives. */
export function modelRules<R>(): {
  forModel(model: string, rule: ModelRule<R> | null): void;
  next(model: string): R | undefined;
} {
  const models = new Map<string, { replies: R[]; standing?: R }>();
  return {
    forModel: (model, rule) => {
      if (rule)
        models.set(model, {
          replies: [...(rule.replies ?? [])],
          ...(rule.standing ? { standing: rule.standing } : {}),
        });
      else models.delete(model);
    },
    next: (model) => {
      const rule = models.get(model);
      return rule ? (rule.replies.shift() ?? rule.standing) : undefined;
    },
  };
}

/**
 * Listen on a free port of 127.0.0.1 and keep every connection, so `close` ends them too (a fake's hanging reply, a
 * client's keep-alive) instead of waiting for them.
 */
export async function listenOnLoopback(server: http.Server): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

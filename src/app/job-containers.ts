import type { Logger } from "pino";
import {
  createContainerSession,
  type ContainerSandboxOptions,
  type ContainerSession,
} from "../exec/container-sandbox.js";
import { notStarted } from "../exec/create-exec.js";
import type { ContainerTarget, Exec, ExecRequest, ExecResult, ProcessPriority } from "../exec/types.js";

/**
 * The job's containers: the one of its checkout (a new target replaces it) and those of its other checkouts (the
 * base's run, see `otherCheckoutExec`), all removed by `close()`.
 */
export function jobContainers(exec: Exec, log: Logger, options: ContainerSandboxOptions) {
  let session: ContainerSession | null = null;
  const others = new Set<Exec>();
  const make = (target: ContainerTarget, what: string, priority?: ProcessPriority): ContainerSession => {
    const made = createContainerSession(exec, target, { ...options, ...(priority ? { priority } : {}) });
    log.info(
      { sandbox: "container", image: target.image, source: target.imageSource, container: made.name, priority },
      what,
    );
    return made;
  };
  return {
    make,
    others,
    current: () => session,
    sessionFor(target: ContainerTarget): ContainerSession {
      if (session && session.target.checkout === target.checkout && session.target.image === target.image)
        return session;
      const old = session;
      if (old) void old.close();
      session = make(target, "repository commands run in a container");
      return session;
    },
    close: async () => void (await Promise.all([session?.close(), ...[...others].map((o) => o.close?.())])),
  };
}

/**
 * The exec of another checkout of the job (see `Exec.forCheckout`): the job's own exec outside container mode; in it,
 * a container session of its own, made on the first command (once the checkout exists: the container mounts its
 * `.git` if it has one), removed by `close()` or with the job.
 */
export function otherCheckoutExec(
  dir: string,
  parts: {
    job: Exec;
    /** The priority of every command of this checkout (see `Exec.forCheckout`). */
    priority?: ProcessPriority;
    inContainer(): Promise<boolean>;
    ending(): boolean;
    session(): ContainerSession;
    noted(run: () => Promise<ExecResult>): Promise<ExecResult>;
    others: Set<Exec>;
  },
): Exec {
  let own: ContainerSession | null = null;
  let released = false;
  const other: Exec = {
    async run(request: ExecRequest): Promise<ExecResult> {
      const req = parts.priority && !request.priority ? { ...request, priority: parts.priority } : request;
      // Bubblewrap: the job's own sandbox, home and temp folders; unavailable: the job's refusal.
      if (!(await parts.inContainer())) return parts.job.run(req);
      if (parts.ending() || released) return notRun("the job is ending and its container was removed");
      const s = (own ??= parts.session());
      return parts.noted(() => s.run(req));
    },
    sandboxMode: async () => (own ? own.sandboxMode() : parts.job.sandboxMode!()),
    async close(): Promise<void> {
      released = true;
      parts.others.delete(other);
      await own?.close();
    },
  };
  parts.others.add(other);
  return other;
}

/** A command's result when it was not started, and why. */
export function notRun(why: string): ExecResult {
  return notStarted(Date.now(), `not run: ${why}`);
}

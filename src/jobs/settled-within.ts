/** Whether `promise` settled within `ms`, calling `tick` (when given) every 100 ms meanwhile. */
export async function settledWithin(promise: Promise<unknown>, ms: number, tick?: () => void): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const interval = tick ? setInterval(tick, 100) : undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
    clearInterval(interval);
  }
}

/** The calendar date of an instant in a time zone, from `Intl.DateTimeFormat` (no time-zone library). */
interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `timeZone` is an IANA zone this runtime knows (`UTC`, `Europe/Berlin`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    // Intl throws a RangeError for an unknown zone: the caller reports it as a configuration problem.
    return false;
  }
}

function localParts(ms: number, timeZone: string): LocalDate & { hour: number; minute: number; second: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms)))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  const part = (name: string): number => {
    const value = parts[name];
    if (value === undefined) throw new Error(`the date of ${ms} in ${timeZone} came without its ${name}`);
    return value;
  };
  return {
    year: part("year"),
    month: part("month"),
    day: part("day"),
    hour: part("hour") % 24,
    minute: part("minute"),
    second: part("second"),
  };
}

/** The zone's offset from UTC at an instant, in ms (positive east of Greenwich). */
function offsetMs(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/** The first instant whose local date in the zone is the given one (its local midnight, or later on a DST gap). */
function startOfLocalDate(date: LocalDate, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day);
  // Two corrections settle the offset, also across a DST change on that day.
  let guess = wall - offsetMs(wall, timeZone);
  guess = wall - offsetMs(guess, timeZone);
  // A zone whose day starts with a gap (no 00:00 that day) starts at the first instant of that date.
  const p = localParts(guess, timeZone);
  if (p.year !== date.year || p.month !== date.month || p.day !== date.day) guess += 3_600_000;
  return guess;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `2026-11-28`: the day of `ms` in the zone. */
export function dayKey(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** `2026-11`: the month of `ms` in the zone. */
export function monthKey(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}`;
}

/** When the day of `ms` ends in the zone: the next local midnight, as an instant. */
export function nextDayStart(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const next = new Date(Date.UTC(p.year, p.month - 1, p.day + 1));
  return startOfLocalDate(
    { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() },
    timeZone,
  );
}

/** When the month of `ms` ends in the zone: the first local midnight of the next month. */
export function nextMonthStart(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const next = new Date(Date.UTC(p.year, p.month, 1));
  return startOfLocalDate({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: 1 }, timeZone);
}

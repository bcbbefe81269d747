import parsePrometheusTextFormat from "parse-prometheus-text-format";

export type Families = ReturnType<typeof parsePrometheusTextFormat>;

/** Parse Prometheus text with a parser of the format (not our own code). */
export const parseMetrics = (text: string): Families => parsePrometheusTextFormat(text);

/** The value of one counter or gauge series (0 when the series is absent). */
export function sample(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const found = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found ? Number(found.value ?? found.count ?? 0) : 0;
}

/** A histogram's observation count (summed over its series). */
export function histogramCount(families: Families, name: string): number {
  return (families.find((f) => f.name === name)?.metrics ?? []).reduce((n, m) => n + Number(m.count ?? 0), 0);
}

/** Every label value of one label across a family's series. */
export function labelValues(families: Families, name: string, label: string): string[] {
  return [
    ...new Set(
      (families.find((f) => f.name === name)?.metrics ?? [])
        .map((m) => m.labels?.[label])
        .filter((v): v is string => v !== undefined),
    ),
  ];
}

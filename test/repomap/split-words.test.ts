import { lightStem, splitWords } from "../../src/repomap/split-words.js";

describe("splitWords", () => {
  test("splits camelCase, PascalCase acronyms, snake_case, kebab-case, paths and digits", () => {
    expect(splitWords("parseHTTPHeader2")).toEqual(["pars", "http", "header"]);
    expect(splitWords("rate_limit-window")).toEqual(["rate", "limit", "window"]);
    expect(splitWords("src/jobs/retryQueue.ts")).toEqual(["job", "retry", "queu"]);
  });

  test("drops stop words, numbers and single letters, keeps repeats", () => {
    expect(splitWords("fix the retry in a retry loop 42 x")).toEqual(["retry", "retry", "loop"]);
  });

  test("splits non-ASCII words at case changes too", () => {
    expect(splitWords("überPrüfungFehler")).toEqual(["über", "prüfung", "fehler"]);
  });
});

describe("lightStem", () => {
  test.each([
    ["retries", "retry"],
    ["retrying", "retry"],
    ["cached", "cach"],
    ["caching", "cach"],
    ["cache", "cach"],
    ["running", "run"],
    ["queues", "queu"],
    ["boxes", "box"],
    ["status", "status"],
    ["map", "map"],
  ])("%s → %s", (word, stem) => {
    expect(lightStem(word)).toBe(stem);
  });
});

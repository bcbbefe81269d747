/**
 * The sample repository and the scripted model answers `aider-bot demo` uses (offline, deterministic). The
 * repository is plain JavaScript tested with Node's own test module (`node:test`), so the demo needs nothing beyond
 * the README's requirements; its test command is named in `.github/aider.yml`.
 *
 * The command runs every test file in one process (`test/all.js`), not `node --test`: that starts a process per file
 * and reads each one's results back over a pipe, and on a loaded machine Node 20's runner can lose the tail of that
 * stream — the file is then reported as `not ok … 'test failed'` without the failing test's name and error, the
 * output the demo shows the model being sent.
 */
export const DEMO_TEST_COMMAND = "node test/all.js";

/** Imports every `*.test.js` beside it, in name order: a test file the pull request adds runs too. */
const RUN_ALL = [
  "// Every test file of this folder, in one process (see the demo's DEMO_TEST_COMMAND).",
  'import { readdirSync } from "node:fs";',
  "",
  'const here = new URL(".", import.meta.url);',
  'for (const name of readdirSync(here).filter((n) => n.endsWith(".test.js")).sort()) await import(new URL(name, here).href);',
  "",
].join("\n");

const FETCH_CLIENT = [
  "/**",
  " * @typedef {object} FetchOptions",
  " * @property {number} [timeoutMs]",
  " */",
  "",
  "/**",
  " * GET `url` and return its body as text.",
  " * @param {string} url",
  " * @param {FetchOptions} [options]",
  " */",
  "export async function getText(url, options = {}) {",
  "  const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });",
  "  if (!res.ok) throw new Error(`GET ${url} failed: ${res.status}`);",
  "  return res.text();",
  "}",
  "",
].join("\n");

/** A test of the client with `fetch` replaced by a list of answers (no network). */
const testFile = (name: string, answers: string, call: string, expectCalls: number) =>
  [
    'import assert from "node:assert/strict";',
    'import { test } from "node:test";',
    'import { getText } from "../src/fetch-client.js";',
    "",
    `test(${JSON.stringify(name)}, async (t) => {`,
    `  const answers = [${answers}];`,
    '  const fetch = t.mock.method(globalThis, "fetch", async () => answers.shift());',
    `  assert.equal(await ${call}, "hello");`,
    `  assert.equal(fetch.mock.callCount(), ${expectCalls});`,
    "});",
    "",
  ].join("\n");

/** The default branch of acme/widgets. */
export const DEMO_FILES: Record<string, string> = {
  "package.json": `{ "name": "widgets", "version": "1.0.0", "type": "module", "scripts": { "test": "${DEMO_TEST_COMMAND}" } }\n`,
  "src/fetch-client.js": FETCH_CLIENT,
  "src/index.js":
    'import { getText } from "./fetch-client.js";\n\nexport async function main() {\n  console.log(await getText("https://example.com"));\n}\n',
  "test/all.js": RUN_ALL,
  "test/fetch-client.test.js": testFile(
    "getText returns the body",
    'new Response("hello")',
    'getText("https://example.test/")',
    1,
  ),
  ".github/aider.yml": `# The commands the bot runs after each edit (read from the default branch).\ntest: ${DEMO_TEST_COMMAND}\nmax_reflections: 2\n`,
};

/** The pull request's own commit: a changelog line and a test the code does not pass yet. */
export const DEMO_PR = {
  title: "Make the client sturdier",
  head: "sturdy-client",
  files: {
    "CHANGELOG.md": "- sturdier client: retry failed requests\n",
    "test/retry.test.js": testFile(
      "getText retries after a 503",
      'new Response("busy", { status: 503 }), new Response("hello")',
      'getText("https://example.test/", { retries: 1 })',
      2,
    ),
  },
  comment: "/aider add retry logic to the fetch client",
};

/** One answer of the model, and what the demo says it did. */
export interface DemoTurn {
  says: string;
  reply: string;
}

/**
 * The model's turns on the pull request: it asks for the file, adds retries with an off-by-one (`retries: 1`
 * makes one request in all), and after the failing test is sent back, fixes it. The commit subject comes last: a
 * one-line subject is taken only by the commit-message request (see the scripted server's takeReply).
 */
export const DEMO_PR_TURNS: DemoTurn[] = [
  { says: "asks to edit src/fetch-client.js", reply: "I need to edit the fetch client:\n\nsrc/fetch-client.js\n" },
  {
    says: "adds a retry loop to getText",
    reply: [
      "I'll retry failed requests with a short backoff.",
      "",
      "src/fetch-client.js",
      "```js",
      "<<<<<<< SEARCH",
      " * @property {number} [timeoutMs]",
      " */",
      "=======",
      " * @property {number} [timeoutMs]",
      " * @property {number} [retries] how many times to try (default 3)",
      " */",
      ">>>>>>> REPLACE",
      "```",
      "",
      "src/fetch-client.js",
      "```js",
      "<<<<<<< SEARCH",
      "  const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });",
      "  if (!res.ok) throw new Error(`GET ${url} failed: ${res.status}`);",
      "  return res.text();",
      "=======",
      "  const attempts = options.retries ?? 3;",
      "  let lastError;",
      "  for (let attempt = 0; attempt < attempts; attempt++) {",
      "    try {",
      "      const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });",
      "      if (!res.ok) throw new Error(`GET ${url} failed: ${res.status}`);",
      "      return await res.text();",
      "    } catch (error) {",
      "      lastError = error;",
      "      if (attempt + 1 < attempts) await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));",
      "    }",
      "  }",
      "  throw lastError;",
      ">>>>>>> REPLACE",
      "```",
    ].join("\n"),
  },
  {
    says: "fixes it: `retries` counts the attempts after the first one",
    reply: [
      "The test expects `retries: 1` to mean one retry after the first request (two requests in all), but my loop made `retries` requests in all. `retries` counts the extra attempts:",
      "",
      "src/fetch-client.js",
      "```js",
      "<<<<<<< SEARCH",
      " * @property {number} [retries] how many times to try (default 3)",
      "=======",
      " * @property {number} [retries] extra attempts after a failed one (default 2)",
      ">>>>>>> REPLACE",
      "```",
      "",
      "src/fetch-client.js",
      "```js",
      "<<<<<<< SEARCH",
      "  const attempts = options.retries ?? 3;",
      "=======",
      "  const attempts = 1 + (options.retries ?? 2);",
      ">>>>>>> REPLACE",
      "```",
    ].join("\n"),
  },
];

export const DEMO_PR_SUBJECT = "feat: retry failed fetches with backoff";

/** The issue the demo labels with `aider`, and the model's answers for it. */
export const DEMO_ISSUE = {
  title: "getText should reject empty URLs",
  body: 'Calling `getText("")` makes a request to the current origin. It should throw a clear error instead.',
};

/** The model's turns on the issue: it asks for the file and adds the check (the tests stay green). */
export const DEMO_ISSUE_TURNS: DemoTurn[] = [
  {
    says: "asks to edit src/fetch-client.js",
    reply: "The check belongs in the fetch client:\n\nsrc/fetch-client.js\n",
  },
  {
    says: "makes getText throw on an empty URL",
    reply: [
      "I'll validate the URL before any request is made.",
      "",
      "src/fetch-client.js",
      "```js",
      "<<<<<<< SEARCH",
      "export async function getText(url, options = {}) {",
      "=======",
      "export async function getText(url, options = {}) {",
      '  if (url.trim() === "") throw new Error("getText: the URL is empty");',
      ">>>>>>> REPLACE",
      "```",
    ].join("\n"),
  },
];

export const DEMO_ISSUE_SUBJECT = "fix: reject empty URLs in getText";

/** Every scripted answer of the demo, in the order the model is asked. */
export const DEMO_REPLIES: string[] = [
  ...DEMO_PR_TURNS.map((t) => t.reply),
  DEMO_PR_SUBJECT,
  ...DEMO_ISSUE_TURNS.map((t) => t.reply),
  DEMO_ISSUE_SUBJECT,
];

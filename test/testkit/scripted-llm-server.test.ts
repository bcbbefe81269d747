import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { commitReply, startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";

/** One non-streamed chat completion; `commit` sends the weak model's commit-message system prompt. */
async function ask(server: ScriptedLlmServer, commit: boolean): Promise<{ status: number; text: string }> {
  const system = commit ? "You write one-line git commit messages." : "You are a senior software engineer.";
  const res = await fetch(`${server.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [
        { role: "system", content: system },
        { role: "user", content: "x" },
      ],
    }),
  });
  const body = (await res.json()) as { choices?: { message: { content: string } }[] };
  return { status: res.status, text: body.choices?.[0]?.message.content ?? "" };
}

describe("the scripted model's replies by kind of request", () => {
  let server: ScriptedLlmServer;
  beforeEach(async () => {
    server = await startScriptedLlmServer();
  });
  afterEach(() => server.close());

  it("a reply function answers from the request it takes; a commit-message request never takes one; clear drops the rest", async () => {
    server.push((request) => `you said ${request.body.messages.at(-1)!.content} to ${request.body.model}`, "later");
    expect(await ask(server, true)).toEqual({ status: 200, text: "" });
    expect(await ask(server, false)).toEqual({ status: 200, text: "you said x to m" });
    expect(server.clear()).toBe(1);
    expect(server.remaining()).toBe(0);
  });

  it("a commit-message request takes the reply marked for it wherever it is; others skip that reply", async () => {
    server.push("edit one", "edit two", commitReply("fix: marked"));
    expect(await ask(server, false)).toEqual({ status: 200, text: "edit one" });
    expect(await ask(server, true)).toEqual({ status: 200, text: "fix: marked" });
    expect(await ask(server, false)).toEqual({ status: 200, text: "edit two" });
    expect(server.remaining()).toBe(0);
  });

  it("unmarked, it takes the next reply only when that is a one-line subject, else gets an empty answer and takes nothing", async () => {
    server.push("src/a.ts\n<<<<<<< SEARCH\n", "feat(api): add retries");
    expect(await ask(server, true)).toEqual({ status: 200, text: "" });
    expect(server.remaining()).toBe(2);
    expect((await ask(server, false)).text).toContain("SEARCH");
    expect(await ask(server, true)).toEqual({ status: 200, text: "feat(api): add retries" });
    // Nothing left: a commit-message request is answered (empty), any other gets the scripted 500.
    expect(await ask(server, true)).toEqual({ status: 200, text: "" });
    expect((await ask(server, false)).status).toBe(500);
    expect(server.requests).toHaveLength(5);
  });
});

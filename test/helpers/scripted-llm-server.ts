export * from "../../testkit/scripted-llm-server.js";

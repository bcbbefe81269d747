export * from "../../src/demo/scripted-llm-server.js";

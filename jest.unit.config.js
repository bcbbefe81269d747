import process from "node:process";
import base from "./jest.config.js";
import { testTiers } from "./test/helpers/test-tiers.js";

/**
 * `npm run test:unit`: the tests that start no process and open no socket (test/helpers/test-tiers.js decides which,
 * test/helpers/unit-guard.js enforces it). No build first: nothing here runs the built app.
 */
const { unit } = testTiers(process.cwd());

export default {
  ...base,
  testMatch: undefined,
  testRegex: unit.map(
    (f) => `^${process.cwd().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
  ),
  globalSetup: undefined,
  globalTeardown: undefined,
  reporters: ["default"],
  setupFiles: ["<rootDir>/test/helpers/unit-guard.js"],
};

/** ESM jest over ts-jest; type-checking is `npm run typecheck`. */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // Fixture trees hold test files of their own (an edit may create one): they are data, not our tests.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/fixtures/"],
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }] },
  testTimeout: 30000,
};

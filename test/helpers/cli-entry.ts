import path from "node:path";

/** The built CLI (jest's globalSetup, test/helpers/build-once.js, makes it current): what `aider-bot` runs. */
export const CLI_MAIN = path.resolve("dist/cli/main.js");

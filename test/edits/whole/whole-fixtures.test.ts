import { describeFixtureCases } from "./run-fixture-cases.js";

describeFixtureCases("whole");

import { describeFixtureCases } from "../whole/run-fixture-cases.js";

describeFixtureCases("patch");

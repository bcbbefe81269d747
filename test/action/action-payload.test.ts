import { ActionSetupError } from "../../src/config/action-env.js";
import { readActionPayload } from "../../src/action/action-payload.js";

describe("readActionPayload", () => {
  test("keeps the fields the Action reads, typed", () => {
    const event = readActionPayload({ ref: "refs/heads/main", sender: { login: "octo", id: 5 }, extra: 1 });
    expect(event.ref).toBe("refs/heads/main");
    expect(event.sender?.id).toBe(5);
  });

  test("a field of the wrong kind is a setup error naming it", () => {
    expect(() => readActionPayload({ ref: 42 })).toThrow(ActionSetupError);
    expect(() => readActionPayload({ ref: 42 })).toThrow(/ref:/);
  });
});

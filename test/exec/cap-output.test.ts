import fc from "fast-check";
import { capOutput, createOutputCapture } from "../../src/exec/cap-output.js";

describe("createOutputCapture", () => {
  it("gives what capOutput gives for the whole text, however it arrives in chunks", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 50 }),
        (chunks, max) => {
          const capture = createOutputCapture(max);
          for (const chunk of chunks) capture.push(chunk);
          expect(capture.text()).toBe(capOutput(chunks.join(""), max));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("holds a bounded amount however much is pushed", () => {
    const capture = createOutputCapture(10);
    let total = 0;
    for (let i = 0; i < 10_000; i++) {
      const line = `line ${i}\n`;
      total += line.length;
      capture.push(line);
    }
    // 4 characters of head, 6 of tail, and the count of the rest.
    expect(capture.text()).toBe(`line\n… [${total - 10} characters cut] …\n 9999\n`);
  });
});

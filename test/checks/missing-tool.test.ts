import { missingNamedTool } from "../../src/checks/missing-tool.js";

describe("missingNamedTool", () => {
  it.each([
    [
      "make runs it itself",
      "CC=clang make -C tests",
      "make: clang: No such file or directory\nmake: *** [Makefile:2: all] Error 127",
      "clang",
    ],
    [
      "make's trailer lines after it",
      'CC=clang CXX=clang++ make -C tests EXTRA_CFLAGS="-W"',
      "make: Entering directory '/w/tests'\nclang++ -o t t.cc\nmake: clang++: No such file or directory\nmake: *** [Makefile:9: t] Error 127\nmake: Leaving directory '/w/tests'\n",
      "clang++",
    ],
    ["dash", "export CC=clang; make", "/bin/sh: 1: clang: not found\nmake: *** [Makefile:2: all] Error 127", "clang"],
    ["bash -c", "flake8 .", "bash: line 1: flake8: command not found", "flake8"],
    ["bash", "ruff check && flake8 .", "All checks passed!\nbash: flake8: command not found\n", "flake8"],
    ["a name with dots and pluses", "g++-12 -o t t.cc", "sh: 1: g++-12: not found", "g++-12"],
  ])("%s", (_name, line, output, tool) => {
    expect(missingNamedTool(line, output)).toBe(tool);
  });

  it.each([
    [
      "a program the command does not name (a Makefile's)",
      "make test",
      "make: pytest: No such file or directory\nmake: *** [Makefile:2: test] Error 127",
    ],
    ["a name inside a longer word", "make CC=clang-15", "make: clang: No such file or directory"],
    ["a name inside a path", "./build/clang-wrapper", "sh: 1: clang: not found"],
    ["a path that is not found (the checkout's own script)", "./configure", "sh: 1: ./configure: not found"],
    [
      "a failure after the missing tool (tests ran and failed)",
      "pytest; flake8",
      "flake8: command not found\nFAILED tests/test_a.py::test_x\n1 failed",
    ],
    ["no output", "flake8", ""],
    ["a test that prints such a line mid-run", "pytest", "pytest: not found\n===== 1 failed ====="],
  ])("not for %s", (_name, line, output) => {
    expect(missingNamedTool(line, output)).toBeNull();
  });
});

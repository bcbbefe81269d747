import { ciToolInstall } from "../../../src/checks/discover/imply-tool-installs.js";

describe("ciToolInstall: a CI line that only installs one Python project runner", () => {
  it.each([
    ["python -m pip install --upgrade pip hatch", "hatch", "hatch"],
    ["python3 -m pip install -U pip tox", "tox", "tox"],
    ["python3.12 -m pip install --user --no-cache-dir nox", "nox", "nox"],
    ["pip install tox==4.11.0", "tox", "tox==4.11.0"],
    ["pip3 install --quiet Poetry", "poetry", "poetry"],
    ["pipx install poetry", "poetry", "poetry"],
    ["pip install uv", "uv", "uv"],
    ["pip install pipenv", "pipenv", "pipenv"],
  ])("%s → %s", (line, name, requirement) => {
    expect(ciToolInstall(line)).toEqual({ name, requirement });
  });

  it.each([
    ["another package beside it", "pip install hatch coverage"],
    ["two runners", "pip install tox nox"],
    ["a requirements file", "pip install -r requirements.txt"],
    ["an editable checkout", "pip install -e . hatch"],
    ["another index", "pip install --index-url https://mirror.example/simple hatch"],
    ["a version range (shell syntax)", 'pip install "tox<4"'],
    ["a package that is not a runner", "pip install pytest"],
    ["pip itself only", "python -m pip install --upgrade pip"],
    ["more commands on the line", "pip install tox && tox"],
    ["a variable", "pip install $TOOL"],
    ["not an install", "pip download hatch"],
    ["another program", "conda install tox"],
    ["a wheel path", "pip install ./dist/hatch-1.0-py3-none-any.whl"],
  ])("not %s: %s", (_, line) => {
    expect(ciToolInstall(line)).toBeNull();
  });
});

"""Time Aider's own SEARCH/REPLACE applier on the cases `bench/edits-bench.ts` sends, for a side-by-side ratio.

Our code, not Aider's: it loads Aider's `aider/coders/editblock_coder.py` from the directory given in the job
(`AIDER_SRC`) and calls its `find_original_update_blocks` + `do_replace`, as Aider's `EditBlockCoder` does for one
answer. That module imports the rest of Aider (the base coder, prompts, utils), which pulls in heavy dependencies
none of these functions use, so minimal stand-ins are put in `sys.modules` first.

stdin: {"aiderSrc": dir, "file": text, "fname": name, "runs": n, "cases": [{"name": str, "answer": str}]}
stdout: {"cases": [{"name": str, "ms": median, "minMs": fastest run, "sha256": of the new content or null when it did not apply}]}
"""
import hashlib
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
import types


def locate(src):
    for candidate in (os.path.join(src, "aider", "coders", "editblock_coder.py"), os.path.join(src, "coders", "editblock_coder.py")):
        if os.path.isfile(candidate):
            return candidate
    raise SystemExit(f"no aider/coders/editblock_coder.py under {src}")


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__path__ = []  # a package, so relative imports below it resolve to the stand-ins
    for key, value in attrs.items():
        setattr(module, key, value)
    sys.modules[name] = module
    return module


def load(path):
    class Coder:  # what `EditBlockCoder` subclasses; unused by the module-level functions timed here
        pass

    class EditBlockPrompts:
        pass

    stub("aider", utils=stub("aider.utils"))
    stub("aider.dump", dump=lambda *args: None)
    stub("aider.coders")
    stub("aider.coders.base_coder", Coder=Coder)
    stub("aider.coders.editblock_prompts", EditBlockPrompts=EditBlockPrompts)
    spec = importlib.util.spec_from_file_location("aider.coders.editblock_coder", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main():
    job = json.load(sys.stdin)
    eb = load(locate(job["aiderSrc"]))
    fence = eb.DEFAULT_FENCE
    with tempfile.TemporaryDirectory() as tmp:
        # do_replace checks that the file exists (a missing one with an empty SEARCH is created), as in Aider's run.
        full_path = os.path.join(tmp, job["fname"])
        with open(full_path, "w", encoding="utf-8") as f:
            f.write(job["file"])
        content = job["file"]
        results = []
        for case in job["cases"]:
            def once():
                new = None
                for path, original, updated in eb.find_original_update_blocks(case["answer"], fence, [job["fname"]]):
                    if path is None:
                        continue
                    new = eb.do_replace(full_path, content, original, updated, fence)
                return new

            for _ in range(3):  # warm-up, as on our side
                out = once()
            times = []
            for _ in range(job["runs"]):
                t0 = time.perf_counter()
                out = once()
                times.append((time.perf_counter() - t0) * 1000)
            digest = hashlib.sha256(out.encode("utf-8")).hexdigest() if out else None
            results.append({"name": case["name"], "ms": statistics.median(times), "minMs": min(times), "sha256": digest})
    json.dump({"cases": results}, sys.stdout)


main()

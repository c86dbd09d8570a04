"""run.py — the integration test runner: every test_* function of every tests/integration/test_*.py,
each a real program under the preload. Prints one line per test and 'N passed, N failed'."""
import importlib
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(selected):
    passed = failed = 0
    for file in sorted(os.listdir(HERE)):
        if not (file.startswith("test_") and file.endswith(".py")):
            continue
        module = importlib.import_module(file[:-3])
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if not (name.startswith("test_") and callable(fn)):
                continue
            if selected and not any(s in name for s in selected):
                continue
            start = time.monotonic()
            try:
                fn()
                passed += 1
                print(f"PASS {file[:-3]}.{name} ({time.monotonic() - start:.1f}s)", flush=True)
            except Exception:
                failed += 1
                print(f"FAIL {file[:-3]}.{name}", flush=True)
                traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

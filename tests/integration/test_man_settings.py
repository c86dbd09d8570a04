"""The man page lists every HOTPATH_* setting the library, the console and hotpath-run read, and
names none they do not (tests/check_man_settings.py). A plain function with a plain assert, so it
runs under tests/integration/run.py and under pytest alike."""
import importlib.util
import os

_CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "check_man_settings.py")


def _checker():
    spec = importlib.util.spec_from_file_location("check_man_settings", _CHECKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_man_page_lists_every_setting():
    checker = _checker()
    assert len(checker.code_names()) >= 30, sorted(checker.code_names())
    found = checker.problems()
    assert not found, "\n".join(found)

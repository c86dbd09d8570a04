"""conftest.py — how pytest runs the integration tests. The tests stay plain functions (no
fixture needed: each one still runs when called by hand); what pytest adds is set up here.

Isolation. Every pytest process (each xdist worker, and the serial pass) gets a registry
directory of its own: XDG_RUNTIME_DIR points at a fresh temporary directory, inherited by every
program a test starts (the live server's per-process entries, hotpath-run --list, the console).
`make` starts each xdist worker, and the serial pass, through netns.sh: a network namespace of
its own, so each has its own 127.0.0.1:6770 (the metrics server's default port) and its own
ephemeral ports, and no two workers can take each other's port.

Tiers. A test's markers come from the tables below, by file and function name, so that the test
files need no change (a @pytest.mark.NAME decorator in the file works the same way):
  serial  times something or measures a share of the CPU: run alone, in a pass of its own after
          the parallel one (in `make check` and `make test` alike);
  slow    takes more than about 5 s: `make test` only;
  stress  many threads, forks, signals or rounds, to shake out races: `make test` only;
  real    runs Debian's real servers or programs (redis, nginx, memcached, sqlite3, prometheus,
          chromium): every test of test_real*.py, and those named below; `make test` only.
A test in no table is in the fast tier, run side by side in `make check`. A name in a table that
its file no longer has is an error, so a renamed test cannot drop out of its tier unseen.
"""
import os
import shutil
import tempfile

import pytest

SERIAL = {
    # CPU shares and start-up cost against the kernel's own count: other tests' load skews them
    "test_exec.py::test_the_profilers_cost_includes_its_start",
    "test_exec.py::test_an_exec_image_counts_only_its_own_cpu",
    # wall-clock limits of a fraction of a second to a few seconds
    "test_exits.py::test_main_thread_pthread_exit_ends_when_the_last_thread_does",
    "test_exits.py::test_daemon_does_not_hold_the_callers_stderr_pipe",
    "test_exits.py::test_background_child_that_drops_its_output_holds_no_pipe_open",
    "test_live.py::test_silent_and_stuck_clients_time_out_without_blocking_others",
    "test_live.py::test_a_process_keeps_the_port_its_clients_found_when_the_configured_one_frees",
    "test_live.py::test_a_daemon_moves_to_the_configured_port_once_its_parent_has_exited",
    # lock hold and wait times against the program's own clock and sleeps
    "test_locks.py::test_contended_global_cache_lock",
    "test_locks.py::test_default_sampling_and_every_hold_timed",
    "test_locks.py::test_condition_wait_is_not_hold_time",
    # CPU samples counted against the CPU time they stand for
    "test_cpu_profile.py::test_three_to_one_shares",
    # ... or against a second of the wall clock, which is less CPU when the machine is busy
    # (16 samples of 50 once under xdist)
    "test_cpu_profile.py::test_a_thread_with_a_64_kb_stack_is_sampled",
    # a thread's share of the wall clock (it burns a core: 90% or more of one)
    "test_threads.py::test_cpu_of_a_live_thread_matches_getrusage",
    "test_report.py::test_reference_layout_of_the_demo",
    # fails under CPU load (2 busy loops beside it, 1 run in 3): the names of 1,500 churned
    # threads land 7 records off; alone it passes
    "test_threads.py::test_names_stay_with_their_threads_when_records_are_recycled",
    # a one-thread program's first 150 ms against the profiler's first interval
    "test_threads.py::test_a_one_thread_program_stays_single_threaded_through_its_first_interval",
    # a program's own ITIMER_PROF ticks against bare's; a Go program that spins for wall-clock time
    "test_cpu_profile.py::test_program_with_its_own_sigprof_profiler_keeps_it_and_is_profiled",
    "test_signals.py::test_a_go_program_with_cgo_gets_cpu_samples_of_go_and_c",
    # counts every process's opens of glibc's debug file: another test's reports open it too
    "test_symbols.py::test_fork_children_inherit_the_parents_symbol_tables",
}

SLOW = {
    "test_console.py::test_console_names_use_the_terminals_width_and_show_their_end",
    "test_cpu_profile.py::test_main_stack_bounds_hold_for_a_program_run_through_the_loader",
    "test_history.py::test_a_producer_whose_consumer_frees_everything_is_not_flagged_with_call_sites",
}

STRESS = {
    "test_locks.py::test_ten_thousand_heap_mutexes_make_one_row",
    # the racing patterns that once hung a program, 60 runs each under a watchdog
    "test_stress.py::test_cpu_samples_that_interrupt_malloc_while_threads_dlclose",
    "test_stress.py::test_cpu_samples_against_threads_that_allocate_and_dlclose",
    "test_stress.py::test_forks_from_a_signal_handler_inside_pthread_create",
    "test_cpu_profile.py::test_samples_never_write_past_a_small_or_freed_stack",
    "test_cpu_profile.py::test_samples_in_a_program_with_many_thread_keys_never_allocate",
}

REAL = {
    # CPython's own test suites under the preload (about 2.5 minutes, bare and preloaded)
    "test_signals.py::test_cpythons_own_subprocess_and_signal_suites_pass_as_bare",
    "test_live.py::test_real_prometheus_scrapes_two_profiled_processes_via_file_sd",
    "test_history.py::test_html_report_renders_in_headless_chromium",
}
REAL_FILES = ("test_real.py", "test_real_live.py")

TABLES = {"serial": SERIAL, "slow": SLOW, "stress": STRESS, "real": REAL}


def pytest_configure(config):
    who = os.environ.get("PYTEST_XDIST_WORKER", "main")
    config.hotpath_runtime = tempfile.mkdtemp(prefix=f"hotpath-xdg-{who}-")
    os.environ["XDG_RUNTIME_DIR"] = config.hotpath_runtime


def pytest_unconfigure(config):
    runtime = getattr(config, "hotpath_runtime", None)
    if runtime:
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)      # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    modules = {item.path.name: item.module for item in items if getattr(item, "module", None)}
    stale = sorted(name for table in TABLES.values() for name in table
                   if name.split("::")[0] in modules
                   and not callable(getattr(modules[name.split("::")[0]], name.split("::")[1], None)))
    if stale:
        raise pytest.UsageError("tests/integration/conftest.py names tests that are gone: " + ", ".join(stale))
    for item in items:
        name = f"{item.path.name}::{item.name}"
        for marker, table in TABLES.items():
            if name in table:
                item.add_marker(getattr(pytest.mark, marker))
        if item.path.name in REAL_FILES:
            item.add_marker(pytest.mark.real)

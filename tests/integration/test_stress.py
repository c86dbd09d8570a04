"""Racing patterns that once hung a program, each run many times under a watchdog: none may hang.
Before the fixes, the same runs hung 13 of 100 (CPU samples and dlclose), 9 of 10 (a fork from
a signal handler inside pthread_create) and 4 of 200 with both CPUs busy (a wait inside
dl_iterate_phdr's callback)."""
import os
import shutil
import subprocess
import tempfile

from harness import clean_env, target

RUNS = 60


def watchdog(cmd, env, timeout=20):
    """How many of RUNS runs hung (killed after timeout s) and how many printed something else."""
    hung = wrong = 0
    expected = None
    for _ in range(RUNS):
        try:
            p = subprocess.run(cmd, env=clean_env(env), capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            hung += 1
            continue
        expected = expected or p.stdout
        wrong += p.returncode != 0 or p.stdout != expected
    return hung, wrong


def test_cpu_samples_that_interrupt_malloc_while_threads_dlclose():
    """A sample's stack walks the modules under the loader's lock, which a dlclose holds while it
    waits for malloc's arena lock, held by the code the sample interrupted."""
    hung, wrong = watchdog([target("fork_in_loader"), "dlopen"],
                           {"HOTPATH_CPU_HZ": "999", "HOTPATH_OUTPUT_FORMAT": "none"})
    assert (hung, wrong) == (0, 0), (hung, wrong)


def test_cpu_samples_against_threads_that_allocate_and_dlclose():
    hung, wrong = watchdog([target("stress_sample_dlclose"), "300"],
                           {"HOTPATH_CPU_HZ": "1000", "HOTPATH_OUTPUT_FORMAT": "none"})
    assert (hung, wrong) == (0, 0), (hung, wrong)


def test_a_wait_inside_dl_iterate_phdrs_callback_with_the_cpus_busy():
    """The program waits for a child inside its dl_iterate_phdr callback (the loader's write lock
    held): the wait hook's first-call dlsym asked for the loader's other lock, held by the sampler
    that the same wait had just started, whose dlopen of mimalloc waited for the write lock."""
    out = tempfile.mkdtemp(prefix="hotpath-stress-")
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
    try:
        hung, wrong = watchdog([target("fork_in_loader"), "callback"],
                               {"HOTPATH_OUTPUT_FORMAT": "json", "HOTPATH_OUTPUT_PATH": os.path.join(out, "%p.json")})
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        shutil.rmtree(out, ignore_errors=True)
    assert (hung, wrong) == (0, 0), (hung, wrong)


def test_forks_from_a_signal_handler_inside_pthread_create():
    """The fork's prepare handler waited for the registry lock that the interrupted pthread_create
    hook held on the same thread."""
    hung, wrong = watchdog([target("fork_in_handler"), "300"], {"HOTPATH_OUTPUT_FORMAT": "none"})
    assert (hung, wrong) == (0, 0), (hung, wrong)

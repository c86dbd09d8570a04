"""Anonymous mappings (mmap, mremap, munmap) counted apart from the heap, per thread and live."""
import sys

from harness import row, run, target

MIB = 1024 * 1024


def test_known_mappings():
    r = run([target("mmap_known")])
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stderr
    mapper = row(r.report, "mapper")
    assert mapper["mmap_bytes"] == 12 * MIB          # 10 mapped + 2 grown; the file map not counted
    assert mapper["munmap_bytes"] == 4 * MIB
    assert mapper["mapped_bytes"] == 8 * MIB
    main = row(r.report, "main")
    assert main["mmap_bytes"] == 1 * MIB and main["munmap_bytes"] == 0
    header = r.report["threads"]["header"]
    assert header["mapped_bytes"] == 9 * MIB, header
    assert header["mmap_bytes"] == 13 * MIB and header["munmap_bytes"] == 4 * MIB


PY_ARENAS = r"""
data = [str(i) * 3 for i in range(1_500_000)]   # ~100 MiB of small objects in pymalloc arenas
del data
"""


def test_python_arenas_show_up():
    r = run([sys.executable, "-c", PY_ARENAS])
    assert r.returncode == 0, r.stderr
    main = row(r.report, "main")
    assert main["mmap_bytes"] >= 60 * MIB, main
    assert main["munmap_bytes"] >= main["mmap_bytes"] // 2, main        # the arenas went back
    header = r.report["threads"]["header"]
    assert header["mapped_bytes"] < main["mmap_bytes"] // 2, header


GIB = 1024 * MIB


def mapping_figures(report):
    """The header's mapped and reserved bytes, and the rows' sums."""
    t = report["threads"]
    rows = t["rows"]
    return ((t["header"]["mapped_bytes"], t["header"]["reserved_bytes"]),
            (sum(r["mapped_bytes"] for r in rows), sum(r["reserved_bytes"] for r in rows)))


def test_fixed_map_inside_a_reservation_is_no_new_mapping():
    r = run([target("mmap_reserve"), "fixed"])
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stderr
    header, rows = mapping_figures(r.report)
    assert header == (0, 0) and rows == (0, 0), (header, rows)
    main = row(r.report, "main")
    assert main["mmap_bytes"] == 128 * MIB and main["munmap_bytes"] == 128 * MIB, main


def test_reservation_is_not_mapped_memory():
    r = run([target("mmap_reserve"), "commit"])
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stderr
    header, rows = mapping_figures(r.report)
    assert header == (96 * MIB, 8 * GIB - 96 * MIB), header
    assert rows == header, rows
    main = row(r.report, "main")
    assert main["mapped_bytes"] == 96 * MIB and main["reserved_bytes"] == 8 * GIB - 96 * MIB, main


def test_memfd_mapped_twice_counts_once():
    r = run([target("mmap_reserve"), "memfd"])
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stderr
    header, rows = mapping_figures(r.report)
    assert header == (16 * MIB, 0) and rows == header, (header, rows)
    main = row(r.report, "main")
    assert main["mmap_bytes"] == 16 * MIB, main

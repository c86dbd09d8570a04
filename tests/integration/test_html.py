"""One picture everywhere (issue 27): the HTML report's tables, built by the page's script in
headless Chromium, show the text report's columns, cells and order, from one process; the flame
graphs zoom on a click and search by name, in a page and as a file of their own, and their
tooltips are in the text's units."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from harness import clean_env, target, validate
from test_history import chromium

SVG = "{http://www.w3.org/2000/svg}"
FULL = 1180.0        # report/flamegraph.c: WIDTH less the two paddings


class Tables(html.parser.HTMLParser):
    """The cells of every table of a DOM dump by the table's id (the header row first), and the
    text of the element with id "command"."""

    def __init__(self):
        super().__init__()
        self.tables, self.table, self.row, self.cell = {}, None, None, None
        self.command, self.in_command = "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and self.table is not None:
            self.row = []
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        self.in_command = a.get("id") == "command"

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "table":
            self.table = self.row = None
        self.in_command = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.in_command:
            self.command += data


def text_tables(text):
    """Each text table by its title (`threads`, `io-write`): header and rows, cells stripped."""
    found, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^([a-z_-]+) - ", line)
        if not m:
            continue
        rows = []
        for l in lines[i + 1:]:
            if l.startswith("|"):
                rows.append([c.strip() for c in l.strip().strip("|").split("|")])
            elif not l.startswith("+"):
                break
        found[m.group(1)] = rows
    return found


def is_subsequence(shown, every):
    at = iter(every)
    return all(any(r == x for x in at) for r in shown)


def test_html_tables_equal_the_text_of_the_same_run():
    d = tempfile.mkdtemp(prefix="hotpath-picture-")
    try:
        text_path, page = os.path.join(d, "report.txt"), os.path.join(d, "report.html")
        argv = [target("picture"), d, "--an argument", "past the seventy-two bytes the text header keeps of the "
                "command line, which the page shows whole"]
        p = subprocess.run(argv, env=clean_env({"HOTPATH_OUTPUT_FORMAT": "table", "HOTPATH_OUTPUT_PATH": text_path,
                                                "HOTPATH_HTML_PATH": page, "HOTPATH_TABLE_WIDTH": "0"}),
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(text_path, encoding="utf-8") as f:
            text = text_tables(f.read())
        dump = chromium("--dump-dom", "file://" + page)
        assert dump.returncode == 0, dump.stderr[-2000:]
        dom = Tables()
        dom.feed(dump.stdout.decode("utf-8"))
        with open(page, encoding="utf-8") as f:
            embedded = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', f.read(), re.S)
        validate(json.loads(embedded.group(1)))     # the JSON the page carries, with its new fields
        # the whole command line, never cut
        assert dom.command == " ".join([argv[0], argv[1], "'--an argument'", "'" + argv[3] + "'"]), dom.command
        sections = {"threads": "threads-table", "mutexes": "mutexes-table", "rw_locks": "rw-locks-table",
                    "io-read": "io-read-table", "io-write": "io-write-table",
                    "functions-cpu": "functions-cpu-table", "functions-alloc": "functions-alloc-table"}
        for title, table_id in sections.items():
            assert title in text, (title, list(text))
            head, *shown = text[title]
            html_head, *every = dom.tables[table_id]
            assert html_head == head, (title, html_head, head)
            assert shown, title          # the target gives every table rows
            # the rows the text shows are the page's, cell for cell, in the text's order; the page
            # may have more (the threads table's row limit, locks that never waited)
            assert is_subsequence(shown, every), (title, shown, every)
            if title.startswith("io-") or title.startswith("rw") or title.startswith("mutex"):
                assert every == shown, (title, shown, every)
        # what the picture gives: fsync time in the written file's Total, with its Syncs
        written = next(r for r in text["io-write"][1:] if r[0].endswith("/picture.dat"))
        assert written[10] == "1", written
        assert [r[1] for r in text["rw_locks"][1:]] == ["write", "read"]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def frames(root):
    """Every frame of a flame graph: (its <g>, its title, its <rect>)."""
    out = []
    for g in root.iter(SVG + "g"):
        t, r = g.find(SVG + "title"), g.find(SVG + "rect")
        if t is not None and r is not None:
            out.append((g, t.text, r))
    return out


def flame_graphs(d):
    cpu, alloc = os.path.join(d, "cpu.svg"), os.path.join(d, "alloc.svg")
    p = subprocess.run([target("cpu_ratio"), "1"],
                       env=clean_env({"HOTPATH_OUTPUT_FORMAT": "none", "HOTPATH_CPU_FLAMEGRAPH": cpu,
                                      "HOTPATH_ALLOC_FLAMEGRAPH": alloc}), capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return cpu, alloc


# the test's own script, run last: a click on hot_b's frame, then a search for hot_a
DRIVE = """
var svg = document.getElementsByTagName('svg')[0];
var hit = Array.prototype.filter.call(svg.getElementsByTagName('g'), function (g) {
  var t = g.getElementsByTagName('title')[0];
  return t && t.textContent.indexOf('hot_b (') === 0;
})[0];
hit.getElementsByTagName('rect')[0].dispatchEvent(new MouseEvent('click', { bubbles: true }));
svg.setAttribute('data-share', svg.hpSearch('hot_a'));
"""


def check_driven(root):
    by_name = {}
    for g, title, r in frames(root):
        by_name.setdefault(title.rsplit(" (", 1)[0], []).append((g, r))
    (hot_b, rect_b), = by_name["hot_b"]
    assert abs(float(rect_b.get("width")) - FULL) < 0.02, rect_b.attrib       # zoomed: the full width
    assert abs(float(rect_b.get("x")) - 10) < 0.02, rect_b.attrib
    (_, root_rect), = by_name["all"]
    assert abs(float(root_rect.get("width")) - FULL) < 0.02                    # an ancestor stays
    for g, r in by_name["hot_a"]:                                              # not under hot_b: hidden
        assert g.get("display") == "none", g.attrib
        assert "data-match" in g.attrib and r.get("fill") == "rgb(230,0,230)"  # but matched
    assert "data-match" not in hot_b.attrib
    share = float(root.get("data-share"))
    assert 50 < share < 95, share             # hot_a is about 3/4 of the worker's CPU
    reset = [t for t in root.iter(SVG + "text") if t.get("class") == "fg-reset"]
    assert reset and reset[0].get("display") is None                           # "Reset zoom" shown
    matched = [t for t in root.iter(SVG + "text") if t.get("class") == "fg-matched"]
    assert re.fullmatch(r"Matched: \d+\.\d%", matched[0].text or ""), matched[0].text


def test_flame_graph_zooms_and_searches_in_a_page_and_as_a_file():
    d = tempfile.mkdtemp(prefix="hotpath-flame-")
    try:
        cpu, _ = flame_graphs(d)
        with open(cpu, encoding="utf-8") as f:
            svg = f.read()
        assert "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")   # no network
        # inline in an HTML page, as the report's page has it
        page = os.path.join(d, "page.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><html><body>\n" + svg + "<script>" + DRIVE + "</script></body></html>\n")
        dump = chromium("--dump-dom", "file://" + page)
        assert dump.returncode == 0, dump.stderr[-2000:]
        body = dump.stdout.decode("utf-8")
        inline = re.search(r"<svg.*</svg>", body, re.S).group(0)
        check_driven(ET.fromstring(inline.replace("&nbsp;", " ")))
        # the file of its own, opened as an SVG document: the same script
        alone = os.path.join(d, "alone.svg")
        with open(alone, "w", encoding="utf-8") as f:
            f.write(svg.replace("</svg>", "<script><![CDATA[" + DRIVE + "]]></script></svg>"))
        dump = chromium("--dump-dom", "file://" + alone)
        assert dump.returncode == 0, dump.stderr[-2000:]
        check_driven(ET.fromstring(dump.stdout.decode("utf-8")))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_flame_graph_tooltips_are_in_human_units():
    d = tempfile.mkdtemp(prefix="hotpath-flame-")
    try:
        cpu, alloc = flame_graphs(d)     # cpu_ratio allocates too little to draw: alloc_sites below
        titles = [t for _, t, _ in frames(ET.parse(cpu).getroot())]
        assert titles and all(re.fullmatch(r".+ \(\d+ samples?, \d+\.\d%\)", t) for t in titles), titles[:5]
        assert any(t.startswith("all (") and t.endswith(", 100.0%)") for t in titles)
        p = subprocess.run([target("alloc_sites"), "shares", "50000"],
                           env=clean_env({"HOTPATH_OUTPUT_FORMAT": "none", "HOTPATH_ALLOC_FLAMEGRAPH": alloc}),
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        titles = [t for _, t, _ in frames(ET.parse(alloc).getroot())]
        units = r"\d+ B|\d+\.\d (KB|MB|GB|TB)"
        assert titles and all(re.fullmatch(r".+ \((%s), \d+\.\d%%\)" % units, t) for t in titles), titles[:5]
    finally:
        shutil.rmtree(d, ignore_errors=True)

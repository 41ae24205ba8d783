"""Checks a page of `runner report FILE --html` in headless Chromium (or Firefox): it loads with
no script error, and its tables and charts are what the options expect.

The page's report.js writes <pre id="runner-self-check" hidden> once everything is drawn:
{"errors": [...], "rows": N, "charts": [{"id", "title", "series", "drawn"}], "elapsed_ms": T}.
This opens the page from disk (`chromium --headless=new --dump-dom`; Firefox through its
Marionette protocol, firefox_page.py), reads that element from the DOM and compares it with the
expectations; errors must always be empty.

Usage (Debian's python3, standard library only):
  /usr/bin/python3 tools/report/check_page.py PAGE.html [--browser chromium|firefox]
      [--expect-rows N] [--expect-chart TITLE=SERIES]... [--expect-text TEXT]...
      [--expect-title TEXT] [--screenshot PNG] [--time]
Exit 0 when every expectation holds; 1 with a line per failed one; 77 when the browser is absent
(a test then skips, saying why).
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

import firefox_page

SKIP = 77
CHROMIUM_NAMES = ("chromium", "chromium-browser")
TIMEOUT_S = 120
# Elements whose text a reader never sees.
UNSEEN_TAGS = {"script", "style", "template", "noscript", "head", "title"}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
             "track", "wbr"}


def chromium_binary():
    """Chromium's path, or None where it is not installed."""
    return next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)


def chromium(binary, page, extra):
    """Runs headless Chromium on the page; its stdout. Virtual time lets timers run to the end."""
    command = [binary, "--headless=new", "--disable-gpu", "--no-sandbox",
               "--virtual-time-budget=10000", *extra, "file://" + os.path.abspath(page)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited with {done.returncode}: {done.stderr.strip()[-400:]}")
    return done.stdout


class PageText(html.parser.HTMLParser):
    """The dumped DOM's self-check, title and the text a reader sees (outside hidden elements)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.self_check = None
        self.title = ""
        self.visible = []
        self.open_tags = []  # (tag, hides its text, is the self-check)

    def handle_starttag(self, tag, attrs):
        if tag in VOID_TAGS:
            return
        attributes = dict(attrs)
        is_check = attributes.get("id") == "runner-self-check"
        hides = tag in UNSEEN_TAGS or "hidden" in attributes or is_check
        self.open_tags.append((tag, hides, is_check))
        if is_check:
            self.self_check = ""

    def handle_endtag(self, tag):
        for depth in range(len(self.open_tags) - 1, -1, -1):
            if self.open_tags[depth][0] == tag:
                del self.open_tags[depth:]
                return

    def handle_data(self, data):
        if any(is_check for _, _, is_check in self.open_tags):
            self.self_check += data
        elif self.open_tags and self.open_tags[-1][0] == "title":
            self.title += data
        if not any(hides for _, hides, _ in self.open_tags):
            self.visible.append(data)

    def visible_text(self):
        return re.sub(r"\s+", " ", " ".join(self.visible))


def without_scripts(dom):
    """The DOM less its <script> elements: the page's data and code are most of it, and no part
    of what this checks."""
    return re.sub(r"<script\b[^>]*>.*?</script>", "", dom, flags=re.S | re.I)


def chart_expectation(text):
    title, equals, series = text.rpartition("=")
    if not equals or not title or not series.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not TITLE=SERIES (SERIES a count)")
    return title, int(series)


def failures(check, page, args):
    """One line per expectation the page misses."""
    found = [f"error on the page: {error}" for error in check.get("errors", [])]
    if args.expect_rows is not None and check.get("rows") != args.expect_rows:
        found.append(f"rows: expected {args.expect_rows}, the page shows {check.get('rows')}")
    charts = check.get("charts", [])
    for title, series in args.expect_chart:
        same_title = [chart for chart in charts if chart.get("title") == title]
        if not same_title:
            titles = ", ".join(repr(chart.get("title")) for chart in charts) or "none"
            found.append(f"chart '{title}': not on the page (charts: {titles})")
        elif not any(chart.get("series") == series for chart in same_title):
            found.append(f"chart '{title}': expected {series} series, it has "
                         f"{', '.join(str(chart.get('series')) for chart in same_title)}")
        elif not any(chart.get("series") == series and chart.get("drawn") for chart in same_title):
            found.append(f"chart '{title}': its canvas has no pixel of a series' colour")
    text = page.visible_text()
    for expected in args.expect_text:
        if re.sub(r"\s+", " ", expected) not in text:
            found.append(f"text '{expected}': not visible on the page")
    if args.expect_title is not None and page.title.strip() != args.expect_title:
        found.append(f"title: expected '{args.expect_title}', the page has '{page.title.strip()}'")
    return found


def dom_of(binary, args):
    """The page's DOM once drawn, in the chosen browser; the screenshot too when asked."""
    if args.browser == "firefox":
        return firefox_page.dom_and_screenshot(binary, args.page, args.screenshot, TIMEOUT_S)
    dom = chromium(binary, args.page, ["--dump-dom"])
    if args.screenshot:
        chromium(binary, args.page, ["--screenshot=" + os.path.abspath(args.screenshot),
                                     "--window-size=1400,3000", "--hide-scrollbars"])
    return dom


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("page", help="the .html file to open")
    parser.add_argument("--expect-rows", type=int, help="table rows shown or filtered in total")
    parser.add_argument("--expect-chart", type=chart_expectation, action="append", default=[],
                        metavar="TITLE=SERIES", help="a chart of that title drew that many series")
    parser.add_argument("--expect-text", action="append", default=[], metavar="TEXT",
                        help="text visible on the page")
    parser.add_argument("--expect-title", metavar="TEXT", help="the page's <title>")
    parser.add_argument("--screenshot", metavar="PNG", help="also save a 1400x3000 screenshot")
    parser.add_argument("--time", action="store_true", help="print the page's elapsed_ms")
    parser.add_argument("--browser", choices=("chromium", "firefox"), default="chromium",
                        help="the headless browser to open it in (default chromium)")
    args = parser.parse_args()

    binary = chromium_binary() if args.browser == "chromium" else firefox_page.binary()
    if binary is None:
        package = "chromium" if args.browser == "chromium" else "firefox-esr"
        print(f"check_page: skipped: no {args.browser} on PATH (apt-get install {package})")
        return SKIP
    if not os.path.isfile(args.page):
        print(f"check_page: {args.page}: no such file")
        return 1
    try:
        page = PageText()
        page.feed(without_scripts(dom_of(binary, args)))
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as error:
        print(f"check_page: {args.page}: {error}")
        return 1
    if page.self_check is None:
        print(f"check_page: {args.page}: no #runner-self-check: the page's script did not finish")
        return 1
    try:
        check = json.loads(page.self_check)
    except json.JSONDecodeError as error:
        print(f"check_page: {args.page}: #runner-self-check is not JSON: {error}")
        return 1
    if args.time:
        print(f"elapsed_ms: {check.get('elapsed_ms')}")
    found = failures(check, page, args)
    for line in found:
        print(f"check_page: {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

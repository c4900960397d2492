#!/usr/bin/env python3
"""Loads every page of a built book in headless Chromium (Playwright) at a
390 px wide phone viewport and fails when a page

- logs a console error or warning (highlight.js's "could not find the
  language" warnings included), throws, or fails to load a resource;
- has a ```cuda block that highlight.js did not highlight;
- shows raw TeX (a `$...$`, `$$...$$` or `\\command{` left in its text, or a
  formula KaTeX could not render), or a power of two written `2^k` instead
  of `2ᵏ`;
- is wider than the viewport outside a deliberate scroll box (an element
  whose overflow-x is auto or scroll, such as a table's wrapper or a
  code block).

Then, on a built book, it checks Run in the page (scripts/browser_run.py):
the editors open, edit and Reset, degrade without a service.

Usage: browser_check.py BOOK_DIR        check every page and the editors
       browser_check.py --self-test     check that planted pages fail
       browser_check.py --service-check [--service URL] BOOK_DIR
                                        Run against a `cuda-runner serve
                                        --compile-only`: a compile error at
                                        its line, "compiled; no GPU here",
                                        Ctrl-Enter (the service the book was
                                        built with, or URL)
       browser_check.py --timing N [--service URL] [--stage ID | --example ID]
                        [--json FILE] BOOK_DIR
                                        click Run N times on one block
                                        (default: the starter of stage
                                        reduction/stage2, at 2^22) and report
                                        click-to-rendered-panel median and
                                        spread

Chromium is Debian's (/usr/bin/chromium, or CHROMIUM); Playwright drives it
over the DevTools protocol.
"""

import argparse
import functools
import http.server
import os
import pathlib
import sys
import tempfile
import threading
import json
import time

from playwright.sync_api import sync_playwright

import browser_run

WIDTH = 390
HEIGHT = 844

# The page's own findings, computed in the browser after load.
INSPECT = r"""
(width) => {
  const found = [];
  const describe = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (typeof el.className === 'string' && el.className.trim())
      s += '.' + el.className.trim().split(/\s+/).join('.');
    const text = (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
    return text ? `${s} ("${text}")` : s;
  };

  // Highlighting: every cuda block holds highlight.js's token spans.
  for (const code of document.querySelectorAll('code.language-cuda')) {
    if (!code.querySelector('[class^="hljs-"], [class*=" hljs-"]'))
      found.push(['unhighlighted', 'a cuda block without highlighting: ' + describe(code)]);
  }

  // Maths: KaTeX's errors, and TeX left in the text outside code.
  for (const err of document.querySelectorAll('.katex-error'))
    found.push(['raw TeX', 'KaTeX could not render: ' + describe(err)]);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const p = node.parentElement;
      // An editor (theme/run.js) shows code, as <pre> does.
      if (!p || p.closest('pre, code, script, style, .katex, noscript, textarea, .ace_editor'))
        return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  const tex = /\$\$|\$[^$\s][^$]*\$|\\[A-Za-z]+\{/;
  // Powers of two are written one way, 2²⁰ (the plugin turns 2^20 into
  // it); a 2^k left in the text was missed.
  const caret = /(^|[^\w"'.^])2\^-?\d/;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const m = node.nodeValue.match(tex);
    if (m) found.push(['raw TeX', `"${m[0].slice(0, 60)}" in ${describe(node.parentElement)}`]);
    const c = node.nodeValue.match(caret);
    if (c) found.push(['2^k', `"${c[0].trim()}" written as 2^k in ${describe(node.parentElement)}`]);
  }

  // Width: the page scrolls sideways, or an element reaches past the
  // viewport's right edge without a scroll box around it.
  const doc = document.documentElement;
  if (doc.scrollWidth > width + 1)
    found.push(['too wide', `the page is ${doc.scrollWidth} px wide at a ${width} px viewport`]);
  const scrolls = (el) => {
    const o = getComputedStyle(el).overflowX;
    return o === 'auto' || o === 'scroll';
  };
  const hidden = (el) => {
    const r = el.getBoundingClientRect();
    return r.width === 0 && r.height === 0;
  };
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (hidden(el) || el.closest('nav, .sidebar, #mdbook-sidebar, #sidebar')) continue;
    const r = el.getBoundingClientRect();
    if (r.right <= width + 1 || r.left >= width) continue;
    let boxed = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (scrolls(a)) { boxed = true; break; }
    }
    if (boxed) continue;
    // Report the outermost element only.
    if (wide.some((w) => w.contains(el))) continue;
    wide.push(el);
    found.push(['too wide', `${describe(el)} reaches ${Math.round(r.right)} px`]);
  }
  return found;
}
"""


def serve(folder):
    """An HTTP server for `folder` on a free loopback port, in a thread."""
    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Quiet(http.server.SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, *args):
        pass


def launch(playwright):
    """Debian's Chromium, headless, with no background networking (the
    machine's network is closed) and no sandbox where we are root."""
    executable = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    args = [
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=args)


def check_pages(folder, pages):
    """Loads each page (paths relative to `folder`); returns {page: [(kind,
    detail)]} for the pages with findings."""
    server = serve(folder)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    findings = {}
    with sync_playwright() as p:
        browser = launch(p)
        context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        page = context.new_page()
        log = []

        # The browser's own request for /favicon.ico (made for a page
        # without an icon link, toc.html) is the server's, not the book's;
        # a request cut short by the next page's load (net::ERR_ABORTED)
        # did not fail.
        def browsers_own(url):
            return url.endswith("/favicon.ico")

        def on_console(m):
            if m.type in ("error", "warning") and not browsers_own(m.location.get("url", "")):
                log.append(("console", f"{m.type}: {m.text} ({m.location.get('url', '')})"))

        def on_failed(r):
            if r.failure != "net::ERR_ABORTED" and not browsers_own(r.url):
                log.append(("console", f"failed to load {r.url}: {r.failure}"))

        def on_response(r):
            if r.status >= 400 and not browsers_own(r.url):
                log.append(("console", f"HTTP {r.status} for {r.url}"))

        page.on("console", on_console)
        page.on("pageerror", lambda e: log.append(("console", f"uncaught: {e}")))
        page.on("requestfailed", on_failed)
        page.on("response", on_response)
        for rel in pages:
            log.clear()
            # networkidle: every request the page makes has ended, so none
            # is cut short by the next page's load.
            page.goto(base + rel, wait_until="networkidle")
            # Fonts (KaTeX's among them) can change widths; wait for them.
            page.evaluate("document.fonts.ready.then(() => true)")
            found = [tuple(f) for f in page.evaluate(INSPECT, WIDTH)]
            if found:
                # Once more after a second: on a loaded machine a long page
                # (print.html) was once inspected before its script had
                # highlighted it. What is wrong stays wrong.
                page.wait_for_timeout(1000)
                found = [tuple(f) for f in page.evaluate(INSPECT, WIDTH)]
            found = list(log) + found
            if found:
                findings[rel] = found
        browser.close()
    server.shutdown()
    return findings


def book_pages(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.html"))


def report(findings):
    for page, found in sorted(findings.items()):
        print(f"{page}:")
        for kind, detail in found:
            print(f"  {kind}: {detail}")


# Planted pages for the self-test: each must give exactly its kind of
# finding; `good.html` (a wide table in a scroll box, highlighted code,
# rendered maths) must give none.
PLANTED = {
    "good.html": (
        None,
        '<div style="overflow-x:auto"><table><tr><td style="min-width:900px">a wide table'
        '</td></tr></table></div><pre><code class="language-cuda hljs">'
        '<span class="hljs-keyword">__global__</span> void k() {}</code></pre>'
        '<p>cost <span class="katex">x<sup>2</sup></span>, US$ 5, N = 2²⁶</p>'
        '<p><code>sizes = ["2^20"]</code></p>',
    ),
    "wide.html": ("too wide", '<p>text</p><div style="width:1200px">a wide element</div>'),
    "console.html": ("console", "<p>text</p><script>console.error('planted error')</script>"),
    "warning.html": ("console", "<p>text</p><script>console.warn('planted warning')</script>"),
    "missing.html": ("console", '<p>text</p><img src="no-such-image.png" alt="">'),
    "unhighlighted.html": (
        "unhighlighted",
        '<pre><code class="language-cuda">__global__ void k() {}</code></pre>',
    ),
    "caret.html": ("2^k", "<p>at N = 2^26 the kernel</p>"),
    "rawtex.html": ("raw TeX", r"<p>$$y_j = \frac{e^{x_j}}{\sum_k e^{x_k}}$$</p>"),
    "katex-error.html": ("raw TeX", '<p><span class="katex-error">\\frac{</span></p>'),
}


def self_test():
    """The check can fail: each planted page gives its finding, and only
    it; the good page gives none."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for name, (_, body) in PLANTED.items():
            (folder / name).write_text(
                '<!DOCTYPE html><html><head><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                '<link rel="icon" href="data:,"></head>'
                f"<body>{body}</body></html>"
            )
        findings = check_pages(folder, sorted(PLANTED))
    wrong = []
    for name, (kind, _) in PLANTED.items():
        kinds = {k for k, _ in findings.get(name, [])}
        expected = {kind} if kind else set()
        if kinds != expected:
            wrong.append(f"{name}: expected {sorted(expected) or 'no finding'}, got {findings.get(name, [])}")
    if wrong:
        print("browser check self-test failed:", *wrong, sep="\n  ")
        return 1
    print(f"self-test: {len(PLANTED) - 1} planted pages each caught, the good page passes")
    return 0


def with_browser(folder, check):
    """Runs `check(browser, base_url)` against `folder` served locally."""
    server = serve(folder)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as p:
            browser = launch(p)
            try:
                return check(browser, base)
            finally:
                browser.close()
    finally:
        server.shutdown()


def failed(what, failures):
    """Prints the failures of a check; returns its exit status."""
    if failures:
        print(f"{what} failed:", *failures, sep="\n  ")
        print("Fix theme/run.js, the plugin's wrapper (preprocessor/src/render/html.rs) or the service")
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", nargs="?", type=pathlib.Path, help="a built book's folder")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--service-check", action="store_true",
                        help="check Run against a compile-only cuda-runner serve")
    parser.add_argument("--timing", type=int, metavar="N", help="click Run N times and report the times")
    parser.add_argument("--service", metavar="URL", help="point the page's blocks at this running service")
    parser.add_argument("--stage", help="the timed block: a stage's starter (default reduction/stage2)")
    parser.add_argument("--example", help="the timed block: an example's first listing")
    parser.add_argument("--json", type=pathlib.Path, metavar="FILE", help="write the timing summary here")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.book:
        parser.error("give a built book's folder, or --self-test")
    viewport = {"width": WIDTH, "height": HEIGHT}
    url = args.service.rstrip("/") if args.service else None
    if args.timing:
        stage = None if args.example else (args.stage or "reduction/stage2")
        failures, summary = with_browser(args.book, lambda b, base: browser_run.timing(
            b, base, args.book, viewport, args.timing, url, args.example, stage))
        print(f"{summary['block']}: {summary['runs']} runs, click to rendered panel median "
              f"{summary['median_ms']:.0f} ms (quartiles {summary['p25_ms']:.0f}-{summary['p75_ms']:.0f} ms, "
              f"spread (p75-p25)/median {summary['spread']:.1%}; min {summary['min_ms']:.0f}, max "
              f"{summary['max_ms']:.0f}, first run {summary['first_ms']:.0f} ms); service's own total, median "
              f"{summary['service_median_ms']:.0f} ms; outcomes {', '.join(summary['outcomes'])}")
        if args.json:
            args.json.write_text(json.dumps(summary, indent=2) + "\n")
        return failed("the timed runs", failures)
    if args.service_check:
        start = time.monotonic()
        failures = with_browser(args.book, lambda b, base: browser_run.service(b, base, viewport, url))
        if failed("Run against the compile-only service", failures):
            return 1
        print(f"Run against the compile-only service: a compile error at the broken line (annotated, marked, "
              f"listed), 'compiled; no GPU here' for the starter, Ctrl-Enter runs ({time.monotonic() - start:.0f} s)")
        return 0
    start = time.monotonic()
    pages = book_pages(args.book)
    findings = check_pages(args.book, pages)
    seconds = time.monotonic() - start
    if findings:
        report(findings)
        print(
            f"{len(findings)} of {len(pages)} pages fail the browser check (above; {WIDTH} px viewport). "
            "Fix the page, the plugin's HTML or theme/cuda-measured.css"
        )
        return 1
    print(f"{len(pages)} pages load cleanly at {WIDTH} px: no console errors or warnings, "
          f"every cuda block highlighted, maths rendered, powers of two as 2ᵏ, nothing wider than the "
          f"viewport outside a scroll box ({seconds:.0f} s)")
    start = time.monotonic()
    failures = with_browser(args.book, lambda b, base: browser_run.editors(b, base, viewport))
    if failed("the editor checks", failures):
        return 1
    print(f"editors: open on an example page and the exercise page in C/C++ mode, edit then Reset restores, "
          f"Escape leaves, a folded solution lays out, dark theme, code shown without JavaScript, "
          f"Run without a service (none configured, none reachable) keeps the stored panel and says so, "
          f"a waiting run shows compiling and measuring and Cancel ends it "
          f"({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

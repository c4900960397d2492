"""Run in the page, checked in a real browser (used by browser_check.py).

The book's runnable blocks are Ace editors made by theme/run.js inside the
preprocessor's <div class="cm-run" data-example=... data-stage=...
data-run-service=...>. These checks drive them as a reader does (clicks,
keys) and read the editor through Ace's own API (the element's env.editor):

- editors(): on an example page and on the exercise page the editor opens
  with the block's code in C/C++ mode; typing changes it and Reset restores
  the original; Escape leaves the editor for the Run button; a folded
  solution's editor is laid out when it opens; the dark theme reaches the
  editor; with JavaScript off the code block still shows; without a
  service, and with one that cannot be reached, Run says "Run needs a
  runner service" and the stored panel stays as it was; a run that waits
  says it is compiling and measuring, and Cancel ends it.
- service(): against a `cuda-runner serve --compile-only`: a kernel broken
  on a known line comes back as a compile error marked at that line of the
  editor and listed under it; the good kernel comes back "compiled; no GPU
  here"; Ctrl-Enter runs.
- timing(): clicks Run N times and reports click-to-rendered-panel times.

Each check returns a list of failures (empty: passed).
"""

import re
import socket
import statistics

from playwright.sync_api import TimeoutError as PlaywrightTimeout

# A block's parts, as theme/run.js builds them.
WRAPPER = "div.cm-run"
# Ace's editor for a wrapper, and its text.
EDITOR_JS = "(w) => w.querySelector('.cm-editor').env.editor"
VALUE_JS = f"(w) => ({EDITOR_JS})(w).getValue()"
ORIGINAL_JS = "(w) => w.querySelector(':scope > pre code').textContent.replace(/\\n$/, '')"
# Waits, in the page, until a run started by clicking Run (or by the key
# press `key`, with the editor focused) has ended and its result is
# painted; returns the click-to-paint time and what the block shows.
RUN_JS = r"""
async (w, how) => {
  const start = performance.now();
  const ended = new Promise((resolve) => {
    const done = () => w.dataset.state !== 'running';
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(); } });
    obs.observe(w, { attributes: true, attributeFilter: ['data-state'] });
    if (how === 'click') w.querySelector('.cm-run-button').click();
    if (done()) { obs.disconnect(); resolve(); }
  });
  await ended;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return {
    ms: performance.now() - start,
    state: w.dataset.state,
    outcome: w.dataset.outcome || null,
    service_ms: w.dataset.serviceMs ? Number(w.dataset.serviceMs) : null,
    status: w.querySelector('.cm-run-status').textContent,
    panel: !!w.querySelector('.cm-run-panel .cm-panel'),
  };
}
"""
# How long a run may take before the check gives up (the page's own limit
# is 60 s).
RUN_WAIT_MS = 90_000


def closed_port():
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_block(page, stage):
    """The first runnable block of the page: an exercise stage's starter
    when `stage`, else any."""
    selector = f"{WRAPPER}[data-stage]" if stage else WRAPPER
    block = page.locator(selector).first
    block.wait_for(state="attached")
    return block


def point_at(page, service):
    """Points every block of the page at `service` (run.js reads the
    attribute at each run)."""
    page.evaluate(
        "(url) => document.querySelectorAll('div.cm-run').forEach((w) => { w.dataset.runService = url; })",
        service,
    )


def click_run(block):
    """Clicks Run and waits, in the page, until the run has ended (the
    page's own limit, 60 s, ends a run that gets no answer)."""
    return block.evaluate(RUN_JS, "click")


def key_run(page, block, keys):
    """Presses `keys` in the focused editor and waits until the run they
    started has ended; None when they started none within 5 s."""
    block.locator(".ace_content").click()
    block.evaluate("(w) => { w.dataset.state = 'idle'; }")
    page.keyboard.press(keys)
    try:
        page.wait_for_function("(w) => w.dataset.state !== 'idle'", arg=block.element_handle(), timeout=5000)
    except PlaywrightTimeout:
        return None
    page.wait_for_function(
        "(w) => ['done', 'error', 'offline'].includes(w.dataset.state)",
        arg=block.element_handle(),
        timeout=RUN_WAIT_MS,
    )
    return block.evaluate("(w) => ({ state: w.dataset.state, outcome: w.dataset.outcome || null,"
                          " status: w.querySelector('.cm-run-status').textContent })")


def editor_opens(block, where):
    """The block is an editor holding the code the page showed, in C/C++
    mode, with Run and Reset buttons; the <pre> it replaced is hidden."""
    failures = []
    if block.locator(".cm-editor.ace_editor").count() != 1:
        return [f"{where}: no Ace editor in the runnable block"]
    original = block.evaluate(ORIGINAL_JS)
    if block.evaluate(VALUE_JS) != original:
        failures.append(f"{where}: the editor does not hold the code block's text")
    mode = block.evaluate(f"(w) => ({EDITOR_JS})(w).session.getMode().$id")
    if mode != "ace/mode/c_cpp":
        failures.append(f"{where}: the editor's mode is {mode}, not ace/mode/c_cpp")
    if block.locator(":scope > pre").is_visible():
        failures.append(f"{where}: the code block still shows beside the editor")
    for name in ("Run", "Reset"):
        if block.get_by_role("button", name=name, exact=True).count() != 1:
            failures.append(f"{where}: no {name} button the keyboard and screen readers can reach")
    label = block.evaluate(f"(w) => ({EDITOR_JS})(w).textInput.getElement().getAttribute('aria-label')")
    if not label or "editable" not in label:
        failures.append(f"{where}: the editor's text input has no label for screen readers: {label!r}")
    return failures


def edit_then_reset(page, block, where):
    """Typing changes the editor; Reset restores the original; Escape
    leaves the editor for the Run button."""
    failures = []
    original = block.evaluate(ORIGINAL_JS)
    block.locator(".ace_content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("// a reader's edit\n")
    edited = block.evaluate(VALUE_JS)
    if not edited.startswith("// a reader's edit\n") or edited == original:
        failures.append(f"{where}: typing did not change the editor (it holds {edited[:60]!r})")
    page.keyboard.press("Escape")
    if not page.evaluate("document.activeElement.classList.contains('cm-run-button')"):
        failures.append(f"{where}: Escape in the editor did not move the focus to Run")
    block.get_by_role("button", name="Reset", exact=True).click()
    if block.evaluate(VALUE_JS) != original:
        failures.append(f"{where}: Reset did not restore the original code")
    return failures


def degrades(page, block, where):
    """Without a service (the book built without run-service) and with a
    service that cannot be reached, Run says it needs a runner service and
    the stored panel is what it was."""
    failures = []
    panel_before = block.evaluate("(w) => { const p = w.querySelector(':scope > .cm-panel'); return p && p.outerHTML; }")

    def after_run(case):
        # Run from the keyboard: the button focused, then Enter.
        run_button = block.get_by_role("button", name="Run", exact=True)
        run_button.focus()
        page.keyboard.press("Enter")
        block.locator(".cm-run-status.cm-run-offline").wait_for(timeout=RUN_WAIT_MS)
        text = block.locator(".cm-run-status").inner_text()
        if "Run needs a runner service" not in text:
            failures.append(f"{where} ({case}): Run says {text!r}, not that it needs a runner service")
        if block.evaluate("(w) => w.dataset.state") != "offline":
            failures.append(f"{where} ({case}): the block's state is not offline")
        panel = block.evaluate("(w) => { const p = w.querySelector(':scope > .cm-panel'); return p && p.outerHTML; }")
        if panel != panel_before:
            failures.append(f"{where} ({case}): the stored panel changed")
        if block.locator(".cm-run-panel").count():
            failures.append(f"{where} ({case}): a reader's panel appeared without a service")
        return text

    if block.get_attribute("data-run-service") is None:
        after_run("no service configured")
    port = closed_port()
    point_at(page, f"http://127.0.0.1:{port}")
    text = after_run("service unreachable")
    if "could not be reached" not in text:
        failures.append(f"{where} (service unreachable): the message does not say the service could not be reached: {text!r}")
    return failures


def cancels(page, block, where):
    """Against a service that takes the request and never answers, Run
    shows that it is compiling and measuring, with a Cancel button, and
    Cancel ends the wait with the stored panel in place."""
    failures = []
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections complete, and are never answered
        point_at(page, f"http://127.0.0.1:{silent.getsockname()[1]}")
        block.get_by_role("button", name="Run", exact=True).click()
        cancel = block.get_by_role("button", name="Cancel", exact=True)
        try:
            cancel.wait_for(state="visible", timeout=5000)
        except PlaywrightTimeout:
            return [f"{where}: no Cancel button while a run waits"]
        text = block.locator(".cm-run-status").inner_text()
        if "Compiling and measuring" not in text or block.get_attribute("data-state") != "running":
            failures.append(f"{where}: a waiting run does not say it is compiling and measuring: {text!r}")
        if not block.get_by_role("button", name="Run", exact=True).is_disabled():
            failures.append(f"{where}: Run stays enabled while a run waits")
        cancel.click()
        try:
            block.locator(".cm-run-status", has_text="Cancelled").wait_for(timeout=5000)
        except PlaywrightTimeout:
            pass
        if cancel.is_visible() or block.get_attribute("data-state") != "idle":
            failures.append(f"{where}: Cancel did not end the wait")
    return failures


def editors(browser, base, viewport):
    """Every editor check without a service; returns the failures."""
    failures = []
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    for rel, stage in (("reductions.html", False), ("exercise-reduction.html", True)):
        page.goto(base + rel, wait_until="networkidle")
        block = first_block(page, stage)
        where = f"{rel} {block.get_attribute('data-stage') or block.get_attribute('data-example')}"
        failures += editor_opens(block, where)
        if failures:
            continue
        failures += edit_then_reset(page, block, where)
        failures += degrades(page, block, where)
        failures += cancels(page, block, where)

    # A solution folded in <details> gets its editor laid out on opening.
    page.goto(base + "exercise-reduction.html", wait_until="networkidle")
    solution = page.locator("details.cm-solution").first
    solution.locator(":scope > summary").click()
    width = solution.locator(".cm-editor").first.evaluate("(e) => e.getBoundingClientRect().width")
    lines = solution.locator(".cm-editor .ace_line").count()
    if width < 100 or lines == 0:
        failures.append(f"exercise-reduction.html: the folded solution's editor is not laid out when opened ({width:.0f} px, {lines} lines)")

    # The dark theme reaches the editors (book.js themes window.editors).
    page.goto(base + "reductions.html", wait_until="networkidle")
    page.locator("#mdbook-theme-toggle").click()
    page.locator("#mdbook-theme-coal").click()
    if not page.locator(".cm-run .ace_editor.ace-tomorrow-night").first.is_visible():
        failures.append("reductions.html: the coal theme did not give the editor Ace's dark theme")
    context.close()

    # Without JavaScript the code block shows, as before the editor.
    context = browser.new_context(viewport=viewport, java_script_enabled=False)
    page = context.new_page()
    page.goto(base + "reductions.html")
    if not page.locator(f"{WRAPPER} > pre code").first.is_visible():
        failures.append("reductions.html: without JavaScript the runnable block's code does not show")
    context.close()
    return failures


def broken_on_line(code):
    """`code` with an undeclared name used on the line after the first
    opening brace: NVRTC's error is on that line. Returns (text, line)."""
    lines = code.split("\n")
    at = next(i for i, line in enumerate(lines) if "{" in line) + 1
    lines.insert(at, "    undeclared_in_this_book = 1;")
    return "\n".join(lines), at + 1


def service(browser, base, viewport, url=None):
    """Run against a compile-only service (the one the book was built
    with, or `url`); returns the failures."""
    failures = []
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(base + "exercise-reduction.html", wait_until="networkidle")
    if url:
        point_at(page, url)
    block = first_block(page, stage=True)
    where = f"exercise-reduction.html stage {block.get_attribute('data-stage')}"
    if not block.get_attribute("data-run-service"):
        context.close()
        return [f"{where}: the block names no run service (build the book with CUDA_MEASURED_RUN_SERVICE, or pass --service)"]

    # A compile error at the reader's line, in the gutter, marked and listed.
    text, line = broken_on_line(block.evaluate(ORIGINAL_JS))
    block.evaluate(f"(w, t) => ({EDITOR_JS})(w).setValue(t, -1)", text)
    got = click_run(block)
    if got["outcome"] != "compile_error":
        failures.append(f"{where}: a broken kernel came back {got['outcome'] or got['state']} ({got['status']!r}), not compile_error")
    rows = block.evaluate(f"(w) => ({EDITOR_JS})(w).session.getAnnotations().filter((a) => a.type === 'error').map((a) => a.row)")
    if line - 1 not in rows:
        failures.append(f"{where}: no error annotation at line {line} (annotated rows, from 0: {rows})")
    if block.locator(f".cm-run-diagnostics li[data-line='{line}']").count() == 0:
        listed = block.locator(".cm-run-diagnostics").inner_text()
        failures.append(f"{where}: the error is not listed at line {line} under the editor: {listed!r}")
    if block.locator(".ace_editor .cm-run-line-error").count() == 0:
        failures.append(f"{where}: the error's line is not marked in the editor")

    # The answer (message, listed error, the service's panel, the gates)
    # fits the phone's width, as the page did.
    wide = page.evaluate("document.documentElement.scrollWidth")
    if wide > viewport["width"] + 1:
        failures.append(f"{where}: with the compile error shown the page is {wide} px wide at {viewport['width']} px")

    # The good kernel: compiled, and no GPU to measure it on.
    block.get_by_role("button", name="Reset", exact=True).click()
    got = click_run(block)
    if got["outcome"] != "no_gpu" or "compiled; no GPU here" not in got["status"]:
        failures.append(f"{where}: the starter came back {got['outcome'] or got['state']} ({got['status']!r}), not 'compiled; no GPU here'")
    if block.locator(".cm-run-diagnostics li").count():
        failures.append(f"{where}: errors are still listed after a good run")
    # The stage's gates are listed, none judged without a GPU.
    gates = block.locator(".cm-run-gates li").all_inner_texts()
    if not gates or any(not g.startswith("– not judged:") for g in gates):
        failures.append(f"{where}: the stage's gates are not listed as not judged: {gates}")

    # Ctrl-Enter in the editor of an example runs it.
    page.goto(base + "reductions.html", wait_until="networkidle")
    if url:
        point_at(page, url)
    block = first_block(page, stage=False)
    where = f"reductions.html {block.get_attribute('data-example')}"
    got = key_run(page, block, "Control+Enter")
    if got is None:
        failures.append(f"{where}: Ctrl-Enter in the editor started no run")
    elif got["outcome"] != "no_gpu":
        failures.append(f"{where}: Ctrl-Enter gave {got['outcome'] or got['state']} ({got['status']!r}), not no_gpu")
    context.close()
    return failures


def find_block(book, example, stage):
    """The page (relative to `book`) holding the block of `example` or of
    `stage` (print.html aside)."""
    attribute = f'data-stage="{stage}"' if stage else f'data-example="{example}"'
    opening = re.compile(r'<div class="cm-run"[^>]* ' + re.escape(attribute))
    for path in sorted(book.rglob("*.html")):
        if path.name != "print.html" and opening.search(path.read_text()):
            return str(path.relative_to(book)), attribute
    raise SystemExit(f"no runnable block with {attribute} in {book}: name an example or stage the book shows")


def timing(browser, base, book, viewport, runs, url, example, stage):
    """Clicks Run `runs` times on one block; prints the click-to-rendered
    times; returns (failures, summary)."""
    rel, attribute = find_block(book, example, stage)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(base + rel, wait_until="networkidle")
    if url:
        point_at(page, url)
    block = page.locator(f"{WRAPPER}[{attribute}]").first
    results = []
    for i in range(runs):
        got = click_run(block)
        results.append(got)
        print(f"  run {i + 1}: {got['ms']:.0f} ms click to rendered, service {got['service_ms']} ms, "
              f"{got['outcome'] or got['state']}, panel {'shown' if got['panel'] else 'none'}")
    context.close()
    times = sorted(r["ms"] for r in results)
    quartiles = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    summary = {
        "block": f"{rel} [{attribute}]",
        "runs": runs,
        "median_ms": statistics.median(times),
        "min_ms": times[0],
        "max_ms": times[-1],
        "p25_ms": quartiles[0],
        "p75_ms": quartiles[2],
        # The first run may find the service cold (its compile cache,
        # its workers); it is in the figures above and also apart here.
        "first_ms": results[0]["ms"],
        "spread": (quartiles[2] - quartiles[0]) / statistics.median(times),
        "outcomes": sorted({r["outcome"] or r["state"] for r in results}),
        "service_median_ms": statistics.median(
            [r["service_ms"] for r in results if r["service_ms"] is not None] or [0]
        ),
    }
    failures = [f"run {i + 1}: {r['state']} ({r['status']!r})" for i, r in enumerate(results) if r["state"] != "done"]
    return failures, summary

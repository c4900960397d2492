// Run in the page: every block the preprocessor wraps in <div class="cm-run">
// (an example's first listing, an exercise stage's starter) becomes an Ace
// editor (mdBook's bundled ace.js, C/C++ mode from theme/ace/) with Run,
// Reset and Ctrl-Enter (Cmd-Enter on a Mac). Run posts the editor's text to
// the `cuda-runner serve` named in the wrapper's data-run-service
// (book.toml [preprocessor.cuda] run-service; the contract is README's "Run
// in the page") and shows the answer beside the stored panel: the service's
// own panel_html, rendered by the same Rust renderer as the stored one and
// inserted as it comes, the gates a stage judged, and compile errors at the
// reader's lines. Without a service, or when it cannot be reached, the
// stored panel stays and the block says that Run needs a runner service.
//
// The wrapper carries data-state (idle, running, done, offline, error) and,
// after an answer, data-outcome, which scripts/browser_check.py waits on.
// Without JavaScript, or without Ace, the code block stays as it is.
(function () {
    'use strict';

    if (typeof window.ace === 'undefined' || !window.ace) {
        return;
    }

    // A quick measurement compiles, then times one size in a few processes:
    // well under this on the GPU host, but a cold service can be slow.
    const TIMEOUT_MS = 60000;
    const MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
    const RUN_KEYS = MAC ? 'Cmd-Enter' : 'Ctrl-Enter';
    const Range = window.ace.require('ace/range').Range;

    // mdBook's dark themes get Ace's dark theme, as book.js does on a
    // switch (it sets the theme of every editor in window.editors).
    function aceTheme() {
        const html = document.documentElement.classList;
        const dark = ['coal', 'navy', 'ayu'].some((t) => html.contains(t));
        return dark ? 'ace/theme/tomorrow_night' : 'ace/theme/dawn';
    }

    // A small element builder: el('p', {class: 'x'}, 'text', child, ...).
    function el(tag, attrs, ...children) {
        const node = document.createElement(tag);
        for (const [name, value] of Object.entries(attrs || {})) {
            node.setAttribute(name, value);
        }
        for (const child of children) {
            node.append(child);
        }
        return node;
    }

    function setup(wrapper) {
        const pre = wrapper.querySelector(':scope > pre');
        const code = pre && pre.querySelector('code');
        if (!code) {
            return;
        }
        const d = wrapper.dataset;
        const name = d.stage ? 'stage ' + d.stage : d.example;
        // The code as the page shows it is the editor's original text; the
        // fence's last newline is not a line of its own in the editor.
        const original = code.textContent.replace(/\n$/, '');

        // The editor replaces the <pre>, which stays (hidden) for the copy
        // and print paths that read it.
        const host = el('div', { class: 'cm-editor' });
        pre.after(host);
        pre.style.display = 'none';
        const editor = window.ace.edit(host);
        editor.$blockScrolling = Infinity;
        editor.setOptions({
            mode: 'ace/mode/c_cpp',
            theme: aceTheme(),
            maxLines: Infinity,
            minLines: 2,
            showPrintMargin: false,
            highlightActiveLine: false,
            fontSize: '0.875em',
            tabSize: 4,
            useSoftTabs: true,
        });
        editor.setValue(original, -1);
        (window.editors = window.editors || []).push(editor);
        editor.textInput.getElement().setAttribute('aria-label',
            `CUDA code of ${name}, editable; ${RUN_KEYS} runs it, Escape leaves the editor`);

        // The controls, in reading order after the editor.
        const runButton = el('button', { type: 'button', class: 'cm-run-button' }, 'Run');
        const resetButton = el('button', { type: 'button', class: 'cm-reset-button' }, 'Reset');
        const cancelButton = el('button', { type: 'button', class: 'cm-cancel-button' }, 'Cancel');
        cancelButton.hidden = true;
        const bar = el('div', { class: 'cm-run-bar', role: 'group', 'aria-label': `Run ${name}` },
            runButton, resetButton, cancelButton,
            el('span', { class: 'cm-run-keys' }, `${RUN_KEYS} runs · Esc leaves the editor`));
        const status = el('p', { class: 'cm-run-status', role: 'status', 'aria-live': 'polite' });
        const diagnostics = el('ul', { class: 'cm-run-diagnostics', 'aria-label': 'Compile errors' });
        const result = el('div', { class: 'cm-run-result' });
        host.after(bar, status, diagnostics, result);
        // The stored panel, if this listing has one, follows the reader's.
        const stored = wrapper.querySelector(':scope > .cm-panel');

        let markers = [];
        let running = null; // {controller, why, ticker} while a run is out
        wrapper.dataset.state = 'idle';

        function clearMarks() {
            editor.session.clearAnnotations();
            markers.forEach((id) => editor.session.removeMarker(id));
            markers = [];
            diagnostics.replaceChildren();
        }

        function say(text, kind) {
            status.className = 'cm-run-status' + (kind ? ' cm-run-' + kind : '');
            status.replaceChildren(...(Array.isArray(text) ? text : [text]));
        }

        // No service configured, or none reached: the stored panel stays.
        function offline(detail) {
            const help = d.runHelp
                ? el('a', { href: d.runHelp }, 'README, Run in the page')
                : 'README, section "Run in the page"';
            const parts = ['Run needs a runner service (see ', help, ').'];
            if (detail) {
                parts.push(' ' + detail);
            }
            parts.push(' The results shown are the book\'s stored ones.');
            say(parts, 'offline');
            wrapper.dataset.state = 'offline';
        }

        // Compile errors: an annotation in the gutter and a marked line per
        // diagnostic, each also listed with a button that moves there.
        function mark(list) {
            const rows = editor.session.getLength();
            const notes = [];
            for (const diag of list) {
                const row = Math.min(Math.max((diag.line || 1) - 1, 0), rows - 1);
                const column = Math.max((diag.column || 1) - 1, 0);
                const type = diag.severity === 'warning' ? 'warning' : 'error';
                notes.push({ row, column, text: diag.message, type });
                markers.push(editor.session.addMarker(
                    new Range(row, 0, row, 1), 'cm-run-line-' + type, 'fullLine'));
                const go = el('button', { type: 'button', class: 'cm-run-goto' },
                    `line ${row + 1}` + (diag.column ? `:${diag.column}` : ''));
                go.addEventListener('click', () => {
                    editor.gotoLine(row + 1, column, true);
                    editor.focus();
                });
                diagnostics.append(el('li', { 'data-line': String(row + 1) },
                    go, ` ${type}: ${diag.message}`));
            }
            editor.session.setAnnotations(notes);
        }

        // The stage's gates; a kernel that did not compile, or compiled
        // where there is no GPU, was not measured, so none was judged.
        function gateList(gates, judged) {
            const list = el('ul', { class: 'cm-run-gates' });
            for (const g of gates) {
                const word = !judged ? 'not judged' : g.passed ? 'passed' : 'failed';
                const sign = !judged ? '–' : g.passed ? '✓' : '✗';
                list.append(el('li', { class: !judged ? 'cm-unjudged' : g.passed ? 'cm-ok' : 'cm-bad' },
                    el('span', { class: 'cm-mark', 'aria-hidden': 'true' }, sign),
                    ` ${word}: `, el('strong', {}, g.gate),
                    g.detail ? ` (${g.detail})` : ''));
            }
            const passed = gates.filter((g) => g.passed).length;
            const summary = judged ? `${passed} of ${gates.length} passed` : 'not judged without a measurement';
            return [el('p', { class: 'cm-run-label' }, `Gates of ${d.stage}: ${summary}`), list];
        }

        // A 200 answer: the outcome's line, the reader's panel beside the
        // stored one, the gates, the compile errors.
        function show(answer) {
            const words = {
                measured: 'measured', compile_error: 'compile error', wrong: 'wrong answer',
                fault: 'fault', timeout: 'time limit', impossible: 'impossible time',
                no_gpu: 'compiled; no GPU here',
            };
            const outcome = answer.outcome || 'unknown';
            const ms = answer.elapsed_ms || {};
            const took = ms.total ? ` (${(ms.total / 1000).toFixed(1)} s)` : '';
            const line = (words[outcome] || outcome) +
                (answer.message && answer.message !== words[outcome] ? ': ' + answer.message : '') + took;
            const kind = outcome === 'measured' ? 'ok' : outcome === 'no_gpu' ? 'info' : 'bad';
            say(line, kind);
            mark(answer.diagnostics || []);
            const parts = [];
            if (answer.panel_html) {
                parts.push(el('p', { class: 'cm-run-label' },
                    'Your edit, a quick measurement (one size, fewer samples than the book\'s):'));
                const box = el('div', { class: 'cm-run-panel' });
                // The service's panel, as its renderer wrote it; its id
                // would repeat the stored panel's.
                box.innerHTML = answer.panel_html;
                box.querySelectorAll('[id]').forEach((n) => n.removeAttribute('id'));
                parts.push(box);
            }
            if ((answer.gates || []).length) {
                const judged = !['compile_error', 'no_gpu'].includes(outcome);
                parts.push(...gateList(answer.gates, judged));
            }
            if (parts.length && stored) {
                parts.push(el('p', { class: 'cm-run-label' }, 'The book\'s stored measurement:'));
            }
            result.replaceChildren(...parts);
            wrapper.dataset.outcome = outcome;
            wrapper.dataset.serviceMs = ms.total || '';
            wrapper.dataset.state = 'done';
        }

        // An error answer (400, 413, 429, 503...): its message, and when to
        // retry if the service said.
        function refused(code, answer) {
            let text = `The service refused the run (HTTP ${code})`;
            if (answer && answer.error) {
                text += ': ' + answer.error;
            }
            if (answer && answer.retry_after_s) {
                text += `; retry in ${answer.retry_after_s} s`;
            }
            say(text, 'bad');
            wrapper.dataset.state = 'error';
        }

        function busy(on) {
            runButton.disabled = on;
            cancelButton.hidden = !on;
            result.setAttribute('aria-busy', on ? 'true' : 'false');
            wrapper.dataset.state = on ? 'running' : wrapper.dataset.state;
        }

        async function run() {
            if (running) {
                return;
            }
            clearMarks();
            delete wrapper.dataset.outcome;
            delete wrapper.dataset.serviceMs;
            // Read at each run, so a page can be pointed at another service.
            const service = (d.runService || '').replace(/\/+$/, '');
            if (!service) {
                offline('This book was built without one (book.toml run-service).');
                return;
            }
            const body = d.stage
                ? { stage: d.stage, source: editor.getValue() + '\n' }
                : { example: d.example, source: editor.getValue() + '\n' };
            const started = Date.now();
            const controller = new AbortController();
            running = { controller, why: null };
            running.timer = setTimeout(() => {
                running.why = 'timeout';
                controller.abort();
            }, TIMEOUT_MS);
            // The seconds count is hidden from screen readers, so the live
            // status is announced once, not every second.
            const clock = el('span', { class: 'cm-run-clock', 'aria-hidden': 'true' }, '0 s');
            say(['Compiling and measuring... ', clock]);
            running.ticker = setInterval(() => {
                clock.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
            }, 1000);
            busy(true);
            cancelButton.focus();
            try {
                const response = await fetch(service + '/run', {
                    method: 'POST',
                    headers: { 'Content-Type': 'application/json' },
                    body: JSON.stringify(body),
                    signal: controller.signal,
                });
                const answer = await response.json().catch(() => null);
                if (response.ok && answer) {
                    show(answer);
                } else {
                    refused(response.status, answer);
                }
            } catch (error) {
                if (running.why === 'cancel') {
                    say('Cancelled; the stored results stay.');
                    wrapper.dataset.state = 'idle';
                } else if (running.why === 'timeout') {
                    say(`No answer from ${service} in ${TIMEOUT_MS / 1000} s; try again later.`, 'bad');
                    wrapper.dataset.state = 'error';
                } else {
                    offline(`${service} could not be reached (${error.message}).`);
                }
            } finally {
                clearTimeout(running.timer);
                clearInterval(running.ticker);
                running = null;
                busy(false);
                if (document.activeElement === cancelButton || document.activeElement === document.body) {
                    runButton.focus();
                }
            }
        }

        function reset() {
            if (running) {
                cancel();
            }
            editor.setValue(original, -1);
            clearMarks();
            say('');
            result.replaceChildren();
            delete wrapper.dataset.outcome;
            wrapper.dataset.state = 'idle';
        }

        function cancel() {
            if (running) {
                running.why = 'cancel';
                running.controller.abort();
            }
        }

        runButton.addEventListener('click', run);
        resetButton.addEventListener('click', reset);
        cancelButton.addEventListener('click', cancel);
        editor.commands.addCommand({
            name: 'cmRun',
            bindKey: { win: 'Ctrl-Enter', mac: 'Command-Enter|Ctrl-Enter' },
            exec: run,
        });
        // Ace keeps Tab for indenting; Escape hands the focus back to the
        // page, at the Run button.
        editor.commands.addCommand({
            name: 'cmLeave',
            bindKey: { win: 'Esc', mac: 'Esc' },
            exec: () => runButton.focus(),
        });
        // Ctrl-Enter also runs from the block's buttons.
        bar.addEventListener('keydown', (event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                run();
            }
        });
        // An editor inside a closed <details> (a solution) was laid out at
        // no width; lay it out again when it opens.
        const folded = wrapper.closest('details');
        if (folded) {
            folded.addEventListener('toggle', () => editor.resize(true));
        }
    }

    document.querySelectorAll('div.cm-run').forEach(setup);
})();

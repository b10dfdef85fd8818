import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../../shared/ids.js';

/**
 * The console's files: its stylesheet and script (below, in this module) and mermaid's bundle
 * (only the order page loads it). Nothing comes from elsewhere: the console
 * works offline.
 */

const CSS = `
:root{--fg:#14181f;--muted:#4a5361;--line:#cdd3dc;--bg:#fff;--soft:#f3f5f8;--accent:#1747a6;--bad:#a3161a;--good:#16632f}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,pre:focus-visible{outline:3px solid #f0a400;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:2}
header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;background:#0f2347;color:#fff;flex-wrap:wrap}
header a{color:#fff}header nav ul{display:flex;gap:1.2em;list-style:none;margin:0;padding:0}
header nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
header form{margin-left:auto}
main{padding:1em 1.2em;max-width:1280px}
h1{font-size:1.45em;margin:.3em 0 .6em}h2{font-size:1.15em;margin:1.4em 0 .5em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
th,td{border-bottom:1px solid var(--line);padding:.35em .5em;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
pre{background:var(--soft);padding:.5em;overflow:auto;max-height:22em;margin:.3em 0}
form.inline{display:inline}
label{font-weight:600;margin-right:.3em}
input,select,button{font:inherit;padding:.3em .5em;border:1px solid #7a8494;border-radius:4px}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
button.danger{background:var(--bad);border-color:var(--bad)}
.filters{display:flex;gap:1em;flex-wrap:wrap;align-items:end;margin:.5em 0}
.filters div{display:flex;flex-direction:column}
.status{display:inline-block;padding:0 .45em;border-radius:3px;background:#e3e8f0;font-weight:600}
.ok{color:var(--good);font-weight:600}.bad{color:var(--bad);font-weight:600}.muted{color:var(--muted)}
.notice{padding:.6em .8em;border-left:4px solid var(--accent);background:var(--soft);margin:.6em 0}
.notice.bad{border-color:var(--bad)}
.cols{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:1.5em}
@media (max-width:1000px){.cols{grid-template-columns:1fr}}
.replay{display:flex;gap:.6em;align-items:center;flex-wrap:wrap;margin:.5em 0}
.replay input[type=range]{width:16em}
tr.future{color:var(--muted)}tr.future .status{background:none;box-shadow:inset 0 0 0 1px var(--line)}
tr.at{background:#fff6d6}
.diagram{border:1px solid var(--line);padding:.5em;overflow:auto;max-height:none}
.diagram svg{max-width:100%;height:auto}
dl.state{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:.3em 0}
dl.state dt{font-weight:600}dl.state dd{margin:0}
progress{width:12em}
.wrap,dl.state dd{overflow-wrap:anywhere}
dl.state dd{min-width:0}
td.wrap{min-width:8em}
td pre{white-space:pre-wrap;overflow-wrap:anywhere}
.login{max-width:26em;margin:4em auto}
.login input{width:100%;margin:.3em 0 .8em}
`;

const SCRIPT = `'use strict';
// Progressive enhancement only: every page works without it.
(function () {
  var data = document.getElementById('replay-data');
  var diagram = document.getElementById('machine-diagram');
  var rendered = 0;
  var requested;
  function draw(source) {
    // Steps that leave the status as it was (a rider's position) show the same picture: not redrawn.
    if (!diagram || !window.mermaid || source === requested) return;
    requested = source;
    var mine = ++rendered;
    window.mermaid.render('machine-svg-' + mine, source).then(function (r) {
      // A render that finishes after a newer one started is stale: only the newest is shown.
      if (mine !== rendered) return;
      diagram.innerHTML = r.svg;
      diagram.setAttribute('data-rendered', String(mine));
    }, function (err) {
      if (mine === rendered) diagram.setAttribute('data-error', String(err && err.message || err));
    });
  }
  // JSON from the console; anything else (the login page after the session ended) reloads the
  // page, which then asks for the login. A network failure stops the polling quietly.
  function getJson(url, then) {
    fetch(url, { credentials: 'same-origin' }).then(function (r) {
      if (r.ok && (r.headers.get('content-type') || '').indexOf('application/json') === 0) return r.json().then(then);
      location.reload();
    }).catch(function () {});
  }
  if (window.mermaid) window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'neutral' });
  if (data) {
    var replay = JSON.parse(data.textContent);
    var steps = replay.steps;
    var slider = document.getElementById('replay-slider');
    var label = document.getElementById('replay-label');
    var rows = document.querySelectorAll('tr[data-revision]');
    var show = function (n) {
      var s = steps[n];
      if (!s) return;
      slider.value = String(n);
      label.textContent = 'After event #' + s.revision + ' (' + s.type + ')';
      var path = document.getElementById('machine-path');
      if (path) path.textContent = 'Path: ' + s.path;
      if (diagram) diagram.setAttribute('aria-label', 'State diagram of the order machine; this order’s path: ' + s.path);
      ['status', 'payment_status', 'total', 'refunded_total', 'rider', 'updated_at'].forEach(function (k) {
        var el = document.getElementById('as-of-' + k);
        if (el) el.textContent = s[k];
      });
      rows.forEach(function (r) {
        var rev = Number(r.getAttribute('data-revision'));
        r.classList.toggle('future', rev > s.revision);
        r.classList.toggle('at', rev === s.revision);
      });
      var prev = document.getElementById('replay-prev');
      var next = document.getElementById('replay-next');
      if (prev) prev.setAttribute('href', '?after=' + Math.max(0, n - 1));
      if (next) next.setAttribute('href', '?after=' + Math.min(steps.length - 1, n + 1));
      history.replaceState(null, '', '?after=' + n);
      draw(replay.diagram + s.marks);
    };
    slider.addEventListener('input', function () { show(Number(slider.value)); });
    ['replay-prev', 'replay-next'].forEach(function (id) {
      var a = document.getElementById(id);
      if (a) a.addEventListener('click', function (e) {
        e.preventDefault();
        show(Number(slider.value) + (id === 'replay-prev' ? -1 : 1));
      });
    });
    show(Number(slider.value));
  } else if (diagram) {
    draw(diagram.textContent);
  }
  var progress = document.querySelector('[data-poll]');
  if (progress) {
    var poll = function () {
      getJson(progress.getAttribute('data-poll'), function (list) {
        var behind = false;
        list.forEach(function (p) {
          var row = document.querySelector('tr[data-projection="' + CSS.escape(p.name) + '"]');
          if (!row) return;
          row.querySelector('.position').textContent = p.position;
          row.querySelector('.checkpoint').textContent = p.checkpoint;
          row.querySelector('.head').textContent = p.head;
          row.querySelector('.lag').textContent = p.lag;
          var bar = row.querySelector('progress');
          bar.max = Number(p.head) || 1;
          bar.value = Number(p.position);
          if (p.lag !== '0') behind = true;
        });
        if (behind) setTimeout(poll, 500);
      });
    };
    poll();
  }
  var audit = document.querySelector('[data-audit-poll]');
  if (audit) {
    var pollAudit = function () {
      getJson(audit.getAttribute('data-audit-poll'), function (s) {
        if (s.state === 'running') setTimeout(pollAudit, 1000);
        else location.replace('/console/read-side');
      });
    };
    setTimeout(pollAudit, 500);
  }
})();
`;

export interface Asset {
  body: Buffer;
  etag: string;
  contentType: string;
}

const inMemory = (contentType: string, text: string): Asset => {
  const body = Buffer.from(text);
  return { body, etag: `"${sha256Hex(body).slice(0, 32)}"`, contentType };
};

/** The console's own small files, kept in memory: the names under /console/assets/ (a lookup, never a path). */
export const CONSOLE_ASSETS: Record<string, Asset> = {
  'console.css': inMemory('text/css; charset=utf-8', CSS),
  'console.js': inMemory('text/javascript; charset=utf-8', SCRIPT),
};

const require = createRequire(import.meta.url);

/** The directory with package.json above this module: the same from the sources and from dist/. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const BUILT_ASSETS = path.join(packageRoot(), 'dist', 'console-assets');

/**
 * Mermaid's bundle (3.6 MB), streamed from disk at each request, never held in memory: the copy
 * `npm run build` writes next to the compiled service, and a gzipped one (about a quarter of it;
 * prepare-assets.ts). mermaid is a development dependency, so a production install (the image)
 * carries the one file and none of its dependency tree. Run from sources before a build, the
 * package's own file is served, plain.
 */
export const MERMAID = {
  name: 'mermaid.js',
  contentType: 'text/javascript; charset=utf-8',
  /** The bundle as the package ships it (build time, and sources before a build). */
  source: (): string => require.resolve('mermaid/dist/mermaid.min.js'),
  built: path.join(BUILT_ASSETS, 'mermaid.min.js'),
  gzipped: path.join(BUILT_ASSETS, 'mermaid.min.js.gz'),
  /** The plain file served: the build's copy, or the package's before a build. */
  plain: (): string => (fs.existsSync(MERMAID.built) ? MERMAID.built : MERMAID.source()),
};

import {PREVIEW_ROUTES} from './client/preview-protocol.js'

/** The player page: layout and styles; `client/main.js` builds the rest from the preview state. */
export function playerPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · engine preview</title>
<style>${STYLES}</style>
<script type="module" src="${PREVIEW_ROUTES.client}main.js"></script>
</head>
<body data-state="loading">
<header>
  <h1><span class="brand">engine preview</span> <span id="composition-file">${escapeHtml(title)}</span></h1>
  <span id="composition-size"></span>
  <span id="connection" title="Live reload: the preview reloads when the composition or a file next to it changes"></span>
</header>
<main>
  <section class="stage-column">
    <div id="stage">
      <div id="viewport"></div>
      <div id="composition-error" role="alert" hidden></div>
    </div>
    <div id="player" role="group" aria-label="Player">
      <button type="button" id="play" aria-keyshortcuts="Space">Play</button>
      <button type="button" id="step-back" aria-label="Previous frame" title="Previous frame (Left arrow)" aria-keyshortcuts="ArrowLeft">|&#x25C0;</button>
      <button type="button" id="step-forward" aria-label="Next frame" title="Next frame (Right arrow)" aria-keyshortcuts="ArrowRight">&#x25B6;|</button>
      <input type="range" id="scrubber" aria-label="Position (frame)" min="0" max="0" step="1" value="0">
      <span class="readout"><output id="time" aria-label="Time">0:00.00</output> / <span id="duration">0:00.00</span></span>
      <span class="readout">frame <output id="frame-number" aria-label="Frame">0</output> / <span id="last-frame">0</span></span>
    </div>
    <p class="hint">Space plays and pauses; Left and Right step one frame (with Shift, one second); Home and End jump to the ends.</p>
    <section id="diagnostics" aria-labelledby="diagnostics-title">
      <h2 id="diagnostics-title">Lint</h2>
      <ul id="lint-findings"></ul>
      <ul id="page-errors"></ul>
    </section>
  </section>
  <aside id="variables" aria-labelledby="variables-title">
    <h2 id="variables-title">Variables</h2>
    <form id="variables-form" autocomplete="off"></form>
    <div class="actions">
      <button type="button" id="copy-variables">Copy --variables JSON</button>
      <button type="button" id="reset-variables">Reset</button>
      <span id="copy-status" role="status"></span>
    </div>
    <label for="variables-json" class="json-label">--variables</label>
    <textarea id="variables-json" readonly rows="4" spellcheck="false"></textarea>
  </aside>
</main>
</body>
</html>
`
}

const STYLES = `
  :root { color-scheme: dark; --panel: #1b1e24; --line: #2d323b; --text: #e6e8eb; --muted: #9aa3ad; --accent: #4f8cff; --error: #ff6b6b; --warning: #f5b942; }
  * { box-sizing: border-box; }
  html, body { margin: 0; height: 100%; }
  body { display: flex; flex-direction: column; background: #121418; color: var(--text); font: 14px/1.4 system-ui, sans-serif; }
  header { display: flex; align-items: baseline; gap: 16px; padding: 10px 16px; border-bottom: 1px solid var(--line); }
  h1 { margin: 0; font-size: 15px; font-weight: 600; }
  h1 .brand { color: var(--muted); font-weight: 400; margin-right: 6px; }
  h2 { margin: 0 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
  #composition-size, #connection { color: var(--muted); font-size: 12px; }
  #connection { margin-left: auto; }
  main { flex: 1; display: flex; min-height: 0; }
  .stage-column { flex: 1; display: flex; flex-direction: column; min-width: 0; padding: 12px 16px; gap: 10px; overflow: auto; }
  #stage { position: relative; flex: 1; min-height: 200px; display: flex; align-items: center; justify-content: center;
    background: repeating-conic-gradient(#1d2026 0% 25%, #171a1f 0% 50%) 50% / 24px 24px; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
  #viewport { position: relative; flex: none; }
  #viewport iframe { position: absolute; left: 0; top: 0; border: 0; transform-origin: 0 0; background: transparent; }
  #viewport iframe.incoming { opacity: 0; pointer-events: none; }
  #composition-error { position: absolute; inset: 16px; overflow: auto; padding: 16px; background: #2a1618; border: 1px solid var(--error); border-radius: 6px; white-space: pre-wrap; font: 13px/1.5 ui-monospace, monospace; }
  #player { display: flex; align-items: center; gap: 8px; }
  #player button { min-width: 36px; }
  #play { min-width: 72px; }
  #scrubber { flex: 1; accent-color: var(--accent); }
  .readout { font-variant-numeric: tabular-nums; color: var(--muted); white-space: nowrap; }
  .readout output { color: var(--text); }
  .hint { margin: 0; color: var(--muted); font-size: 12px; }
  button { background: #2a2f38; color: var(--text); border: 1px solid #3a404b; border-radius: 4px; padding: 5px 10px; font: inherit; cursor: pointer; }
  button:hover { background: #333945; }
  #diagnostics ul { list-style: none; margin: 0; padding: 0; }
  #diagnostics li { padding: 4px 0; border-top: 1px solid var(--line); font-size: 13px; }
  #diagnostics li.none { color: var(--muted); border-top: 0; }
  .severity { display: inline-block; min-width: 62px; font-weight: 600; }
  .error .severity { color: var(--error); }
  .warning .severity { color: var(--warning); }
  .where { color: var(--muted); margin-left: 6px; }
  aside { width: 340px; flex: none; border-left: 1px solid var(--line); background: var(--panel); padding: 12px 16px; overflow: auto; }
  #variables-form { display: flex; flex-direction: column; gap: 12px; }
  .variable { display: grid; grid-template-columns: 1fr auto; gap: 4px 8px; align-items: center; }
  .variable > label { grid-column: 1 / -1; color: var(--muted); font-size: 12px; }
  .variable[data-type="boolean"] { grid-template-columns: auto 1fr; }
  .variable[data-type="boolean"] > label { grid-column: 2; grid-row: 1; color: var(--text); font-size: 14px; }
  .variable[data-type="boolean"] .control { grid-column: 1; grid-row: 1; }
  .variable .control { display: flex; align-items: center; gap: 8px; grid-column: 1 / -1; }
  .variable input[type="text"], .variable input[type="number"], .variable select { flex: 1; min-width: 0; background: #121418; color: var(--text); border: 1px solid #3a404b; border-radius: 4px; padding: 5px 7px; font: inherit; }
  .variable input[type="range"] { flex: 2; accent-color: var(--accent); }
  .variable input[type="color"] { width: 56px; height: 30px; padding: 0; border: 1px solid #3a404b; background: none; }
  .unit { color: var(--muted); }
  .empty { color: var(--muted); }
  .actions { display: flex; align-items: center; gap: 8px; margin: 16px 0 8px; flex-wrap: wrap; }
  #copy-status { color: var(--muted); font-size: 12px; }
  .json-label { display: block; color: var(--muted); font-size: 12px; margin-bottom: 4px; }
  .variable .control:has(textarea.cues) { flex-direction: column; align-items: stretch; }
  .variable textarea.cues { resize: vertical; background: #121418; color: var(--text); border: 1px solid #3a404b; border-radius: 4px; padding: 5px 7px; font: 12px/1.4 ui-monospace, monospace; }
  #variables-json { width: 100%; resize: vertical; background: #121418; color: var(--text); border: 1px solid #3a404b; border-radius: 4px; padding: 6px; font: 12px/1.4 ui-monospace, monospace; }
`

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

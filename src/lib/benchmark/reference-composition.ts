export interface ReferenceSize {
  width: number
  height: number
  durationSeconds: number
}

/** The size renders usually have; `--quick` measures a smaller one. */
export const REFERENCE_SIZE = {width: 1920, height: 1080} as const

/**
 * The composition `engine benchmark` renders when given none: a self-contained page (no network,
 * no files) with what typical compositions draw every frame: gradients, text, a CSS keyframe
 * animation, Web Animations, a `requestAnimationFrame` canvas, a counter updated by a timer, and
 * clips that come and go. It scales to any size so the quick mode can measure a small frame.
 */
export function referenceComposition({width, height, durationSeconds}: ReferenceSize): string {
  const unit = width / 1920
  return `<!doctype html>
<html data-composition-id="engine-benchmark" data-width="${width}" data-height="${height}" data-duration="${durationSeconds}"
  data-composition-variables='[{"id":"title","type":"string","label":"Title","default":"engine benchmark"},{"id":"accent","type":"color","label":"Accent","default":"#ff7a18"}]'>
<head>
<meta charset="utf-8">
<style>
  html, body { margin: 0; width: ${width}px; height: ${height}px; overflow: hidden; }
  body { background: radial-gradient(circle at 30% 20%, #24305e 0%, #0b1026 70%); color: #fff; font-family: "DejaVu Sans", sans-serif; }
  h1 { position: absolute; left: ${120 * unit}px; top: ${80 * unit}px; margin: 0; font-size: ${84 * unit}px; animation: enter 0.8s ease-out both; }
  .sub { position: absolute; left: ${124 * unit}px; top: ${200 * unit}px; font-size: ${36 * unit}px; opacity: .75; }
  .bars { position: absolute; left: ${160 * unit}px; right: ${900 * unit}px; bottom: ${140 * unit}px; height: ${560 * unit}px; display: flex; align-items: flex-end; gap: ${24 * unit}px; }
  .bar { flex: 1; height: 10%; border-radius: ${10 * unit}px ${10 * unit}px 0 0; background: linear-gradient(180deg, var(--accent), #ffb347); box-shadow: 0 0 ${24 * unit}px rgba(255, 122, 24, .4); }
  canvas { position: absolute; right: ${140 * unit}px; bottom: ${140 * unit}px; width: ${640 * unit}px; height: ${560 * unit}px; border-radius: ${16 * unit}px; background: rgba(255, 255, 255, .06); }
  .counter { position: absolute; right: ${160 * unit}px; top: ${80 * unit}px; font-size: ${96 * unit}px; font-weight: bold; color: var(--accent); font-variant-numeric: tabular-nums; }
  .badge { position: absolute; left: ${124 * unit}px; bottom: ${60 * unit}px; padding: ${8 * unit}px ${20 * unit}px; border-radius: ${30 * unit}px; background: var(--accent); font-size: ${28 * unit}px; }
  @keyframes enter { from { transform: translateX(${-200 * unit}px); opacity: 0; } to { transform: none; opacity: 1; } }
</style>
</head>
<body>
  <h1 id="title"></h1>
  <div class="sub">Frames rendered per second on this machine</div>
  <div class="counter" id="counter">0</div>
  <div class="bars" id="bars"></div>
  <canvas id="wave" width="${Math.round(640 * unit)}" height="${Math.round(560 * unit)}"></canvas>
  <div class="badge" data-start="${durationSeconds / 4}" data-duration="${durationSeconds / 2}">measuring</div>
  <script>
    const {title = 'engine benchmark', accent = '#ff7a18'} = window.__engine.getVariables()
    document.documentElement.style.setProperty('--accent', accent)
    document.getElementById('title').textContent = title
    const bars = document.getElementById('bars')
    for (let i = 0; i < 12; i++) {
      const bar = document.createElement('div')
      bar.className = 'bar'
      bars.appendChild(bar)
      bar.animate([{height: '10%'}, {height: (30 + ((i * 37) % 70)) + '%'}, {height: '20%'}], {duration: ${durationSeconds * 1000}, delay: i * 60, fill: 'both', easing: 'ease-in-out'})
    }
    const canvas = document.getElementById('wave')
    const context = canvas.getContext('2d')
    const draw = (now) => {
      context.clearRect(0, 0, canvas.width, canvas.height)
      context.lineWidth = ${Math.max(1, 6 * unit)}
      for (let line = 0; line < 4; line++) {
        context.strokeStyle = line === 0 ? accent : 'rgba(255, 255, 255, ' + (0.5 - line * 0.1) + ')'
        context.beginPath()
        for (let x = 0; x <= canvas.width; x += 4) {
          const y = canvas.height / 2 + Math.sin(x / (40 * ${unit}) + now / 300 + line) * canvas.height * (0.3 - line * 0.05)
          if (x === 0) context.moveTo(x, y)
          else context.lineTo(x, y)
        }
        context.stroke()
      }
      requestAnimationFrame(draw)
    }
    requestAnimationFrame(draw)
    let count = 0
    setInterval(() => (document.getElementById('counter').textContent = String(++count)), 100)
  </script>
</body>
</html>
`
}

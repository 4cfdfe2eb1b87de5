import {registerHooks} from 'node:module'
const seen = []
registerHooks({load(url, ctx, next) { seen.push(url); return next(url, ctx) }})
const t0 = process.cpuUsage()
await import(process.argv[2])
const u = process.cpuUsage(t0)
const agg = new Map()
for (const u of seen) { const m = u.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const k = m ? m[1] : u.includes('/dist/src/') ? 'ours' : u.startsWith('node:') ? 'node:' : u; agg.set(k, (agg.get(k) ?? 0) + 1) }
console.log('total', seen.length, 'cpu', ((u.user+u.system)/1e6).toFixed(3))
for (const [k, v] of [...agg].sort((a,b)=>b[1]-a[1]).slice(0, 14)) console.log(String(v).padStart(5), k)

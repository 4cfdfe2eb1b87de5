// The built engine (dist/, after `npm run build`) as the bench scripts drive it.
const dist = new URL('../dist/src/lib/', import.meta.url)

/**
 * A module of the built engine, by its path under src/lib, with the built-in formats (mp4 …)
 * registered first, as the package entries register them.
 */
export async function engineModule(path) {
  await import(new URL('builtin-plugins.js', dist).href)
  return import(new URL(path, dist).href)
}

/** The plan of an mp4 render of `composition` at `--quality standard`, and the browser to capture it with. */
export async function standardPlan(composition) {
  const [{resolveRenderOptions}, {compileComposition}, {planRender}, {getFormat}, {resolveBrowser}] = await Promise.all(
    ['render/resolve-options.js', 'compose/compile-composition.js', 'plan/plan-render.js', 'encode/format-registry.js', 'browser/resolve-browser.js'].map(engineModule),
  )
  const {plan} = planRender(await compileComposition(composition), resolveRenderOptions({quality: 'standard'}), getFormat('mp4'))
  return {plan, browser: await resolveBrowser()}
}

import {readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {lintComposition} from '../../src/lib/lint/lint-composition.js'
import {probeVideoStream} from '../support/media.js'
import {page, render, SLOW, useProject} from './support.js'

/** `data-composition-variables` written as an object, as some templates do: the page renders without declarations. */
const OBJECT_DECLARATIONS = `data-duration="1" data-composition-variables='{"title": {"type": "string", "default": "Hello"}}'`
const BODY = `<div id="t" style="width:100px;height:100px;background:#0a0"></div>
<script>const {title = 'Hello'} = window.__engine.getVariables(); document.getElementById('t').dataset.title = title</script>`

describe('declarations that are not an array', SLOW, () => {
  const project = useProject()

  it('render with a declarations-invalid warning and no declared variables', async () => {
    const composition = await project.write('object/index.html', page(BODY, {attributes: OBJECT_DECLARATIONS}))
    const output = join(project.dir(), 'object.mp4')
    const result = await render(composition, {output})
    expect(result.warnings).toEqual([expect.objectContaining({code: 'declarations-invalid', message: expect.stringMatching(/index\.html: data-composition-variables must be a JSON array of declarations .* got an object; the composition has no declared variables/)})])
    expect(await probeVideoStream(output)).toMatchObject({nb_read_frames: '10', width: 320, height: 180})
  })

  it('are an error under --strict-variables, before anything is written', async () => {
    const composition = await project.write('strict/index.html', page(BODY, {attributes: OBJECT_DECLARATIONS}))
    const output = join(project.dir(), 'strict-out', 'strict.mp4')
    const error = await render(composition, {output, strictVariables: true}).catch((caught: unknown) => caught)
    expect(isEngineError(error, 'STRICT_VARIABLES')).toBe(true)
    expect((error as Error).message).toMatch(/got an object.*--strict-variables refuses it: write the declarations as an array/s)
    expect(await readdir(project.dir())).not.toContain('strict-out')
  })

  it('in a sub-composition are a warning naming that file', async () => {
    await project.write('nested/card.html', `<template><div data-composition-id="card" data-composition-variables='{"a": 1}'><p>card</p></div></template>`)
    const composition = await project.write('nested/index.html', page(`<div data-composition-src="card.html" data-duration="1"></div>`))
    const result = await render(composition, {output: join(project.dir(), 'nested.mp4')})
    expect(result.warnings.map((warning) => warning.code)).toEqual(['declarations-invalid'])
    expect(result.warnings[0].message).toMatch(/card\.html: data-composition-variables must be a JSON array/)
  })

  it('are a lint warning, not an error', async () => {
    const composition = await project.write('lint/index.html', page(BODY, {attributes: OBJECT_DECLARATIONS}))
    const findings = await lintComposition(composition)
    expect(findings).toEqual([expect.objectContaining({code: 'declarations-invalid', severity: 'warning', line: 2})])
  })
})

import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {ensureRuntimeBundle} from './support/ensure-runtime-bundle.js'
import {pagePlan} from './support/page-plan.js'
import {testBrowser} from './support/test-browser.js'
import {PROCESSES} from '../support/timeouts.js'

// instances.html is what compile produces for two hosts of one sub-composition (card), the first at
// 0 s and the second at 1 s: each host carries data-engine-instance and its script runs scoped.
const plan = pagePlan('instances.html', {
  variables: {title: 'Root'},
  instances: {
    i1: {compositionId: 'card', variables: {label: 'one'}},
    i2: {compositionId: 'card', variables: {label: 'two'}},
  },
})

interface Positions {
  rootbox: number
  plain: number
  late: number
  firstMover: number
  secondMover: number
  firstSlide: string
  secondSlide: string
  firstTween: number
  secondTween: number
}

const positions = `({
  rootbox: gsap.getProperty('#rootbox', 'x'),
  plain: gsap.getProperty('#plain', 'x'),
  late: gsap.getProperty('#late', 'x'),
  firstMover: gsap.getProperty('#first .mover', 'x'),
  secondMover: gsap.getProperty('#second .mover', 'x'),
  firstSlide: getComputedStyle(document.querySelector('#first .slide')).transform,
  secondSlide: getComputedStyle(document.querySelector('#second .slide')).transform,
  firstTween: gsap.getProperty('#first .tween', 'x'),
  secondTween: gsap.getProperty('#second .tween', 'x'),
})`

describe('variables and timelines of sub-composition instances', PROCESSES, () => {
  let worker: CaptureWorker
  const at = (frame: number) => worker.evaluate<Positions>(`__engine.seek(${frame}).then(() => ${positions})`)

  beforeAll(async () => {
    await ensureRuntimeBundle()
    worker = await openCaptureWorker(plan, {browser: testBrowser()})
  })
  afterAll(() => worker?.close())

  it('gives top-level scripts the root variables', async () => {
    expect(await worker.evaluate('rootVariables')).toEqual({title: 'Root'})
    expect(await worker.evaluate('__engine.getVariables()')).toEqual({title: 'Root'})
  })

  it('gives each scoped script its own instance variables, through the parameter and the global', async () => {
    expect(await worker.evaluate(`document.querySelector('#first .label').textContent`)).toBe('one/one')
    expect(await worker.evaluate(`document.querySelector('#second .label').textContent`)).toBe('two/two')
  })

  it('returns a copy that a script cannot change for others', async () => {
    expect(await worker.evaluate(`(__engine.getVariables().title = 'changed', __engine.getVariables().title)`)).toBe('Root')
  })

  it('seeks the root timeline, plain tweens (also one a timer created) and each instance timeline and tween at its local time', async () => {
    expect(await at(45)).toEqual({
      rootbox: 150,
      plain: 100,
      late: 50,
      firstMover: 100,
      secondMover: 50,
      firstSlide: 'matrix(1, 0, 0, 1, 100, 0)',
      secondSlide: 'matrix(1, 0, 0, 1, 50, 0)',
      firstTween: 100,
      secondTween: 50,
    })
    expect(await at(15)).toMatchObject({rootbox: 50, plain: 50, late: 0, firstMover: 50, secondMover: 0, firstSlide: 'matrix(1, 0, 0, 1, 50, 0)', firstTween: 50, secondTween: 0})
  })

  it('keeps both registrations under the shared composition id', async () => {
    expect(await worker.evaluate(`typeof window.__timelines.card.totalTime`)).toBe('function')
    expect(await worker.evaluate(`Object.keys(window.__timelines).sort()`)).toEqual(['card', 'main'])
  })
})

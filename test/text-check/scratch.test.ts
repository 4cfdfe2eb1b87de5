import {join} from 'node:path'
import {it} from 'vitest'
import {checkTextFit} from '../../src/lib/render/check-text-fit.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'

const FIXTURE = join(import.meta.dirname, 'fixtures/overflow.html')
it('scratch', async () => {
  const options = resolveRenderOptions({fps: 10, quality: 'draft', workers: 1})
  console.log(JSON.stringify(await checkTextFit({composition: FIXTURE, options}), null, 1))
  console.log(JSON.stringify(await checkTextFit({composition: FIXTURE, options, variables: {name: 'Maximiliana Wolfeschlegelsteinhausen', title: 'A title long enough to wrap onto three or more lines here', tag: 'limited edition offer', headline: 'A much longer headline here'}}), null, 1))
}, 60000)

import {mkdir, symlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {DEFAULT_NETWORK} from '../../src/lib/sandbox/network-settings.js'
import {checkImageValue, type ImageCheckContext} from '../../src/lib/variables/image-values.js'
import {useScratchDir} from '../support/scratch-dir.js'

/** A 1x1 PNG. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')

describe('image variable values: what a row or request may make the render load', () => {
  const scratch = useScratchDir('engine-image-values-')
  let context: ImageCheckContext

  beforeAll(async () => {
    const project = join(scratch(), 'project')
    await mkdir(join(project, 'scenes'), {recursive: true})
    await mkdir(join(project, '.secret'))
    await writeFile(join(project, 'logo.png'), PNG)
    await writeFile(join(project, '.secret', 'key.png'), PNG)
    await writeFile(join(scratch(), 'outside.png'), PNG)
    await symlink(join(scratch(), 'outside.png'), join(project, 'linked.png'))
    context = {projectDir: project, pageDir: join(project, 'scenes'), network: DEFAULT_NETWORK}
  })

  it('accepts a project image relative to the composition and rooted at the project', async () => {
    expect(await checkImageValue('../logo.png', context)).toBeUndefined()
    expect(await checkImageValue('/logo.png', context)).toBeUndefined()
  })

  it('refuses paths that climb out of the project, dot-files and links out', async () => {
    expect(await checkImageValue('../../outside.png', context)).toMatch(/is outside the project/)
    expect(await checkImageValue('../../../../../../etc/passwd', context)).toMatch(/is outside the project/)
    expect(await checkImageValue('%2e%2e/%2e%2e/outside.png', context)).toMatch(/is outside the project/)
    expect(await checkImageValue('/.secret/key.png', context)).toMatch(/dot-file/)
    expect(await checkImageValue('/linked.png', context)).toMatch(/outside the project .* through a link/)
  })

  it('refuses loopback, private and link-local addresses without connecting, and other schemes', async () => {
    for (const url of ['http://127.0.0.1:9/a.png', 'http://[::1]/a.png', 'http://10.0.0.8/a.png', 'http://169.254.169.254/latest/meta-data', 'http://192.168.1.1/a.png']) {
      expect(await checkImageValue(url, context), url).toMatch(/cannot be loaded: .*(loopback|private|link-local)/)
    }
    expect(await checkImageValue('file:///etc/passwd', context)).toMatch(/is a file: URL/)
    expect(await checkImageValue('javascript:alert(1)', context)).toMatch(/is a javascript: URL/)
    expect(await checkImageValue('data:image/png;base64,iVBORw0KGgo=', context)).toMatch(/data: URL/)
    expect(await checkImageValue('https://example.com/a.png', {...context, network: {publicUrls: false, privateAddresses: false}})).toMatch(/--no-network/)
  })
})

import type {ProfileName} from '../plan/render-options.js'
/** A Debian package pinned to one exact version. */
export interface PinnedPackage {
  name: string
  version: string
}

export interface ProfileFont {
  /** Absolute path where the package installs it (the same on the host and in the image). */
  path: string
  sha256: string
}

/** A generic or well-known family name and the profile font that answers it. */
export interface FamilyAlias {
  family: string
  font: string
}

/**
 * Everything that decides the pixels of a render besides the composition: the browser build and
 * the libraries it draws with, the fonts, the browser flags, and the capture mode. The container
 * image is built from this data (docker/), and a Linux machine with the same packages can render
 * under it without a container (`--profile`).
 */
export interface RenderProfile {
  name: string
  description: string
  /** Every package comes from this Debian release at this snapshot.debian.org timestamp. */
  debian: {release: string; snapshot: string}
  /** Base image of the container: Node for engine itself, on the same Debian release. */
  nodeImage: string
  browser: {
    executablePath: string
    /** What the browser reports as its version (`Browser.getVersion` product). */
    product: string
    /** The browser and the system libraries it rasterises text and images with. */
    packages: PinnedPackage[]
  }
  fonts: {
    packages: PinnedPackage[]
    /** The only font files the browser may see. */
    files: ProfileFont[]
    aliases: FamilyAlias[]
  }
  encoder: {packages: PinnedPackage[]}
  /** Added to the browser's command line; they remove the machine's GPU, CPU features and display from the pixels. */
  browserArgs: string[]
  /** The browser's environment, on top of the generated FONTCONFIG_FILE. */
  env: Record<string, string>
  capture: 'begin-frame'
}

const DEJAVU = '/usr/share/fonts/truetype/dejavu'
const LIBERATION = '/usr/share/fonts/truetype/liberation'

export const DETERMINISTIC_PROFILE: RenderProfile = {
  name: 'deterministic',
  description: "the container image and the serverless function: the function's Chromium build (else Debian chromium-headless-shell), DejaVu + Liberation fonts only, software rendering, begin-frame capture",
  debian: {release: 'bookworm', snapshot: '20261122T000000Z'},
  nodeImage: 'node:22.23.3-bookworm-slim',
  browser: {
    executablePath: '/usr/bin/chromium-headless-shell',
    product: 'HeadlessChrome/156.0.8078.79',
    packages: [
      {name: 'chromium-headless-shell', version: '156.0.8078.79-1~deb12u1'},
      {name: 'chromium-common', version: '156.0.8078.79-1~deb12u1'},
      {name: 'libfreetype6', version: '2.12.1+dfsg-5+deb12u4'},
      {name: 'libharfbuzz0b', version: '6.0.0+dfsg-3'},
      {name: 'libharfbuzz-subset0', version: '6.0.0+dfsg-3'},
      {name: 'libfontconfig1', version: '2.14.1-4'},
      {name: 'fontconfig-config', version: '2.14.1-4'},
      {name: 'fontconfig', version: '2.14.1-4'},
      {name: 'libjpeg62-turbo', version: '1:2.1.5-2'},
      {name: 'libpng16-16', version: '1.6.39-2+deb12u4'},
      {name: 'liblcms2-2', version: '2.14-2'},
    ],
  },
  fonts: {
    packages: [
      {name: 'fonts-dejavu-core', version: '2.37-6'},
      {name: 'fonts-liberation', version: '1:1.07.4-11'},
    ],
    files: [
      {path: `${DEJAVU}/DejaVuSans.ttf`, sha256: 'abdc775b21b1bc470d50c97e790d276f2054b7504e56e5bd3e64f48d68582322'},
      {path: `${DEJAVU}/DejaVuSans-Bold.ttf`, sha256: '0d977336a6d5fba34eab8e3199eb218327161b5143749f802982c2bc34df0c96'},
      {path: `${DEJAVU}/DejaVuSansMono.ttf`, sha256: '0f5db4f1749979d961019838b160bec74abdf7f9eca69553fe1aa856bbff49a4'},
      {path: `${DEJAVU}/DejaVuSansMono-Bold.ttf`, sha256: '2964f6dac8e6e9d71613928340f17bf868e9ea51692cca333c79e74962f02233'},
      {path: `${DEJAVU}/DejaVuSerif.ttf`, sha256: '13e61509f5c81d7c3132810f4f903e3523df89c802bf6e0674621e8f659cdfe1'},
      {path: `${DEJAVU}/DejaVuSerif-Bold.ttf`, sha256: 'e2fd85eba2de65ac270d1cdb1685e252eb827f600850cf62af2d20c41b22e945'},
      {path: `${LIBERATION}/LiberationMono-Bold.ttf`, sha256: '267ae0b63fc67980d11fc4cbb630de84d845c6bf350988ec56766baf98706b8b'},
      {path: `${LIBERATION}/LiberationMono-BoldItalic.ttf`, sha256: 'c8f21356b3948b9ae2858b82a5514a8384c53847fde1f9ecd38cb6849582f864'},
      {path: `${LIBERATION}/LiberationMono-Italic.ttf`, sha256: '8d39f087bf0d103586624233981c048818e1d4bcb74e4c5ca96a34f6caed583d'},
      {path: `${LIBERATION}/LiberationMono-Regular.ttf`, sha256: 'a2e642d350acb1c5e368f375db8a4ef5a2f4ff2b79056d8c3be8bd8a7e9fcb44'},
      {path: `${LIBERATION}/LiberationSans-Bold.ttf`, sha256: '361c61b82d575c5c35fd9157fda8b0194bcfcd0d88ea8521a4fb5dd53d33dddc'},
      {path: `${LIBERATION}/LiberationSans-BoldItalic.ttf`, sha256: 'a224075ac17495ad0a3af3bc0a419ac0704a8b3fd1095456201fb9b095fc281d'},
      {path: `${LIBERATION}/LiberationSans-Italic.ttf`, sha256: '832b4406dbef23628800d3aaad21048534ac84d7e3ad955be83b8172ed8ef512'},
      {path: `${LIBERATION}/LiberationSans-Regular.ttf`, sha256: 'f8ace1f892b2bd9dc1792ba7f097fa7588f84fed48321480e04de5390828221f'},
      {path: `${LIBERATION}/LiberationSansNarrow-Bold.ttf`, sha256: 'f77fe6ca01c8b043b99743fad34954c53d625263c076aa844c5a5dbf568743ab'},
      {path: `${LIBERATION}/LiberationSansNarrow-BoldItalic.ttf`, sha256: '822ef9cfc11f1409f27611f8d128d67105da5ea616f4010b2ab9af76413bda7e'},
      {path: `${LIBERATION}/LiberationSansNarrow-Italic.ttf`, sha256: 'a48c86c13c247fbcf3cdbe9bed3e5abcfa6e91a8f61f3ae190a5893885266e59'},
      {path: `${LIBERATION}/LiberationSansNarrow-Regular.ttf`, sha256: 'ab9719545aeb24156c462601f92bf4897130beaac59ad79bea7da264bce69b19'},
      {path: `${LIBERATION}/LiberationSerif-Bold.ttf`, sha256: 'af228b9de767e5162168e433351b3d0e086648219c6c12ed888fba0bda3694d5'},
      {path: `${LIBERATION}/LiberationSerif-BoldItalic.ttf`, sha256: '19c8cef87d61197323b0501d0f8676669489658f23417ca661de18d85755af06'},
      {path: `${LIBERATION}/LiberationSerif-Italic.ttf`, sha256: 'ccd19036f8e8599e920345105df8d21eb27a66b700ac23968fb14d70259ddb1e'},
      {path: `${LIBERATION}/LiberationSerif-Regular.ttf`, sha256: '1c9c77c2cd0f3c2d2aeef53ea50a4d5d3d684ac73a431d7c70d7864887d194a3'},
    ],
    // Chromium turns the CSS generic families into its default fonts (Arial, Times New Roman,
    // Courier New), so those names go to the metric-compatible Liberation fonts. Fontconfig's own
    // generic names, used for glyphs a font lacks, go to DejaVu, which covers more scripts.
    aliases: [
      {family: 'sans-serif', font: 'DejaVu Sans'},
      {family: 'serif', font: 'DejaVu Serif'},
      {family: 'monospace', font: 'DejaVu Sans Mono'},
      {family: 'system-ui', font: 'DejaVu Sans'},
      {family: 'cursive', font: 'DejaVu Sans'},
      {family: 'fantasy', font: 'DejaVu Sans'},
      {family: 'Arial', font: 'Liberation Sans'},
      {family: 'Helvetica', font: 'Liberation Sans'},
      {family: 'Arial Narrow', font: 'Liberation Sans Narrow'},
      {family: 'Times New Roman', font: 'Liberation Serif'},
      {family: 'Times', font: 'Liberation Serif'},
      {family: 'Courier New', font: 'Liberation Mono'},
      {family: 'Courier', font: 'Liberation Mono'},
    ],
  },
  encoder: {packages: [{name: 'ffmpeg', version: '7:5.1.9-0+deb12u1'}]},
  browserArgs: [
    '--disable-gpu',
    // WebGL still works, drawn by SwiftShader on the CPU the same way everywhere.
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    // Skia otherwise picks code paths by CPU feature (SSE/AVX), which changes antialiased pixels.
    '--disable-skia-runtime-opts',
    '--font-render-hinting=none',
    '--disable-font-subpixel-positioning',
    '--disable-lcd-text',
    '--force-color-profile=srgb',
    '--disable-partial-raster',
    '--lang=en-US',
    '--accept-lang=en-US',
  ],
  env: {TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8'},
  capture: 'begin-frame',
}


const PROFILES: Readonly<Record<ProfileName, RenderProfile>> = {deterministic: DETERMINISTIC_PROFILE}

export function renderProfile(name: ProfileName): RenderProfile {
  return PROFILES[name]
}

/** Every package the profile pins, browser first: what the container image installs. */
export function pinnedPackages(profile: RenderProfile): PinnedPackage[] {
  return [...profile.browser.packages, ...profile.fonts.packages, ...profile.encoder.packages]
}

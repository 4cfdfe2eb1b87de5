export {PROFILE_NAMES, type ProfileName} from '../plan/render-options.js'
export {fontsConf} from './fonts-conf.js'
export {prepareProfileFonts} from './prepare-profile-fonts.js'
export {
  DETERMINISTIC_PROFILE,
  pinnedPackages,
  renderProfile,
  type FamilyAlias,
  type PinnedPackage,
  type ProfileFont,
  type RenderProfile,
} from './render-profile.js'
export {resolveProfileBrowser, type ProfileBrowser, type ProfileNotice} from './resolve-profile-browser.js'
export {resolveRenderBrowser} from './resolve-render-browser.js'

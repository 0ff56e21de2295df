import { version } from '../../../package.json';

/** The app's version, from package.json (bundled at build time, read directly from source). */
export const APP_VERSION: string = version;
export const APP_NAME = 'SpeedMatrix';

import pkg from '../../package.json';

/** The app's version, from package.json (bundled at build time, read directly from source). */
export const APP_VERSION: string = pkg.version;
export const APP_NAME = 'SpeedMatrix';

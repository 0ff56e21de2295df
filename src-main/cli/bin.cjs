#!/usr/bin/env node
// `speedmatrix` command: runs the TypeScript sources through tsx, so a fresh clone works
// right after `npm install` with no build step.
'use strict';
require('tsx/cjs/api').register();
require('./main.ts').main(process.argv.slice(2));

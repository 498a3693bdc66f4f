#!/usr/bin/env node
// The CLI runs from its TypeScript sources through tsx, like the services.
require('tsx/cjs');
require('../src/main.ts');

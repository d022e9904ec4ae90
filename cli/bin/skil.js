#!/usr/bin/env node
// The `skil` command. The CLI is TypeScript run through tsx, which this package already depends on.
require('tsx/cjs');
require('../main.ts');

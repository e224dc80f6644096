#!/usr/bin/env node
// Kept for checkouts whose npx cache still links the command here (npx keeps the bin links it made
// for a local project, npm/cli#9766): the command is bin/tickscope.cjs, which loads ~20 ms faster.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./tickscope.cjs');

// Prints the house measures of issue 29 for `src/`: each folder's files, lines and how many other
// folders it imports; file cycles; exported `*State` types; and what breaks a house rule.
// Run: `npx tsx scripts/house-measures.ts`. The rules themselves are tested in test/unit/house.test.ts.
import path from 'node:path';
import { concepts, houseProblems, measureFolders } from '../test/helpers/house.js';
import { cycles, importGraph, readSources } from '../test/helpers/import-graph.js';

const root = path.resolve(import.meta.dirname, '..');
const files = readSources(root);
const measures = measureFolders(files);
const all = concepts(files);

console.log(
  `src/: ${files.length} files, ${measures.reduce((sum, m) => sum + m.lines, 0)} lines, ${all.length} concepts`,
);
console.log('\n| folder | files | lines | imports (of other concepts) |\n| --- | ---: | ---: | ---: |');
for (const m of measures)
  console.log(`| ${m.folder} | ${m.files} | ${m.lines} | ${m.imports.length} of ${all.length - 1} |`);

const found = cycles(importGraph(files));
console.log(`\nfile cycles: ${found.length}`);
for (const cycle of found) console.log(`  ${cycle.length} files: ${cycle.join(' ')}`);

const states = files.flatMap(({ file, text }) =>
  [...text.matchAll(/export\s+(?:interface|type|class)\s+(\w*State)\b/g)].map(
    (match) => `${file}: ${match[1]}`,
  ),
);
console.log(`\nexported *State types: ${states.length}`);
for (const state of states) console.log(`  ${state}`);

const problems = houseProblems(measures, all.length);
console.log(`\nhouse rules broken: ${problems.length}`);
for (const problem of problems) console.log(`  ${problem}`);

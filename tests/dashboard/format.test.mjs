// format.js's pure helpers, with node's own test runner: node --test tests/dashboard/format.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { activeTest } = await import('../../web/dashboard/js/format.js');

// A conditional parameter is active where its parent holds one of its values, up the chain
// (docs/discrete.md, "Conditional parameters"); the table shows '—' and the slices leave it out elsewhere.
test('conditional parameters are active only where their chain of conditions holds', () => {
  const parameters = [
    { name: 'model', type: 'categorical', choices: ['tree', 'net'] },
    { name: 'layers', type: 'integer', lower: 1, upper: 3, condition: { parent: 'model', values: ['net'] } },
    { name: 'dropout', type: 'continuous', lower: 0, upper: 0.5, condition: { parent: 'layers', values: [2, 3] } },
    { name: 'lr', type: 'continuous', lower: 1e-4, upper: 1e-1 },
  ];
  assert.equal(activeTest(parameters, 0), null);
  assert.equal(activeTest(parameters, 3), null);
  const layers = activeTest(parameters, 1);
  const dropout = activeTest(parameters, 2);
  assert.equal(layers(['tree', 1, 0, 0.01]), false);
  assert.equal(layers(['net', 1, 0, 0.01]), true);
  assert.equal(dropout(['net', 1, 0, 0.01]), false);
  assert.equal(dropout(['net', 3, 0.2, 0.01]), true);
  assert.equal(dropout(['tree', 3, 0.2, 0.01]), false);  // its parent is inactive
});

test('a condition naming an unknown parent leaves the parameter shown', () => {
  const parameters = [{ name: 'x', type: 'continuous', condition: { parent: 'gone', values: ['a'] } }];
  assert.equal(activeTest(parameters, 0), null);
});

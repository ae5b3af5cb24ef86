// A conditional space (docs/discrete.md, "Conditional parameters") and its first trials, shared by
// the charts' and the brush's node tests: axes 0 model, 1 layers (its "— unused" slot under 1),
// 2 dropout (layers 2 and 3 only), 3 lr (log), 4 split ("— unused" its first category), 5 x; an
// unused parameter holds a fixed value (its lower bound, its first choice) the objective never saw.
export const parameters = [
  { name: 'model', type: 'categorical', choices: ['tree', 'net'] },
  { name: 'layers', type: 'integer', lower: 1, upper: 3, condition: { parent: 'model', values: ['net'] } },
  { name: 'dropout', type: 'continuous', lower: 0, upper: 0.5, condition: { parent: 'layers', values: [2, 3] } },
  { name: 'lr', type: 'continuous', lower: 1e-4, upper: 1e-1, log: true, condition: { parent: 'model', values: ['net'] } },
  { name: 'split', type: 'categorical', choices: ['gini', 'entropy'], condition: { parent: 'model', values: ['tree'] } },
  { name: 'x', type: 'continuous', lower: 0, upper: 1 },
];
export const study = { direction: 'minimize', space: { parameters } };
export const trials = [
  { number: 0, state: 'complete', value: 0.9, params: ['tree', 1, 0, 1e-4, 'entropy', 0.2] },
  { number: 1, state: 'complete', value: 0.5, params: ['net', 1, 0, 3e-3, 'gini', 0.4] },
  { number: 2, state: 'complete', value: 0.1, params: ['net', 3, 0.25, 1e-2, 'gini', 0.6] },
  { number: 3, state: 'failed', params: ['net', 2, 0.1, 1e-3, 'gini', 0.8] },
];

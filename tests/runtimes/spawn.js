// Node case of the thread-cache matrix, with a result that depends only on the work.
//   node spawn.js workers N   N worker_threads Workers, each started, answering once and ended
//                             before the next
//   node spawn.js children N  the same, each Worker running `true` (child_process.spawnSync)
//                             before it answers: the thread that started a process
'use strict';
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const { spawnSync } = require('child_process');

function work(index) {
  let sum = 0;
  for (let i = 0; i < 1000; ++i) sum += (i ^ index) % 7;
  return sum;
}

if (!isMainThread) {
  const started = workerData.child ? spawnSync('true').status + 1 : 0;
  parentPort.postMessage(work(workerData.index) + started);
} else {
  const mode = process.argv[2] || 'workers';
  const n = Number(process.argv[3] || 100);
  const runWorker = (index, child) =>
    new Promise((resolve, reject) => {
      const w = new Worker(__filename, { workerData: { index, child } });
      let value = 0;
      w.on('message', (v) => { value = v; });
      w.on('error', reject);
      w.on('exit', () => resolve(value));
    });
  (async () => {
    let total = 0;
    for (let i = 0; i < n; ++i) {
      if (mode !== 'children' && mode !== 'workers') {
        process.stderr.write(`spawn.js: unknown mode ${mode}\n`);
        process.exit(2);
      }
      total += await runWorker(i, mode === 'children');
    }
    console.log(mode, n, total);
  })();
}

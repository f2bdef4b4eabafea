// Placed-CPU-count probe (cpus_case.sh) for Node: os.availableParallelism() (libuv's
// uv_available_parallelism: sched_getaffinity) and where the process's threads run (V8's
// platform workers, libuv's pool, one Worker of ours), from the kernel.
'use strict';
const os = require('os');
const fs = require('fs');
const { Worker } = require('worker_threads');

console.log(`size availableParallelism ${os.availableParallelism()}`);
const worker = new Worker(
  "const { parentPort } = require('worker_threads');" +
    "parentPort.postMessage(require('os').availableParallelism());",
  { eval: true });
worker.on('message', (inWorker) => {
  console.log(`size worker_availableParallelism ${inWorker}`);
  for (const tid of fs.readdirSync('/proc/self/task')) {
    // A thread of Node's own that ended since the listing (ENOENT) is no thread any more.
    let status;
    try {
      status = fs.readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT' || e.code === 'ESRCH') continue;
      throw e;
    }
    const line = status.split('\n').find((l) => l.startsWith('Cpus_allowed_list:'));
    if (line) console.log(`thread-cpus ${line.slice(18).trim()}`);
  }
  worker.terminate();
});

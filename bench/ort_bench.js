// ONNX Runtime's side of bench/run: runs an ONNX model on the .npy inputs bench_<model> wrote,
// with a given thread count, and prints its median latency.
//
//   node bench/ort_bench.js MODEL.onnx DIR THREADS RUNS WARMUP [PROFILE_PREFIX]
//
// With PROFILE_PREFIX, ONNX Runtime's profiler writes every node's time of every run to
// PROFILE_PREFIX_<date>.json (bench/layers.py reads it).
// Reads DIR/input_<name>.npy for every input of the model, runs WARMUP untimed and RUNS timed
// inferences (intra-op threads = THREADS, inter-op 1, sequential execution, all graph
// optimizations), writes the outputs as DIR/ort_output_<i>.npy (in the model's output order)
// and prints one JSON line: {"threads", "runs", "median_ms", "min_ms", "mean_ms", "version"}.
// onnxruntime-node comes from bench/.ort (npm install --prefix bench/.ort --ignore-scripts
// onnxruntime-node).
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '.ort', 'node_modules', 'onnxruntime-node'));

const kNpyTypes = {
  '<f4': ['float32', Float32Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
  '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.readUInt32BE(0) !== 0x934e554d || buf[6] !== 1) {
    throw new Error(`${file}: not a version 1.0 .npy file`);
  }
  const headerLen = buf.readUInt16LE(8);
  const header = buf.toString('latin1', 10, 10 + headerLen);
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const shape = /'shape': \(([^)]*)\)/.exec(header)[1]
                    .split(',')
                    .map((s) => s.trim())
                    .filter((s) => s.length > 0)
                    .map(Number);
  if (!(descr in kNpyTypes)) throw new Error(`${file}: unsupported dtype ${descr}`);
  const [type, Array] = kNpyTypes[descr];
  const start = 10 + headerLen;
  const bytes = buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + buf.length);
  return new ort.Tensor(type, new Array(bytes), shape);
}

function writeNpy(file, tensor) {
  const descr = {float32: '<f4', int64: '<i8', int32: '<i4', bool: '|b1'}[tensor.type];
  if (descr === undefined) throw new Error(`output of type ${tensor.type}`);
  const dims = tensor.dims;
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0,
                              header.length & 0xff, header.length >> 8]);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([
    prefix, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  ]));
}

async function main() {
  const [model, dir, threadsArg, runsArg, warmupArg, profilePrefix] = process.argv.slice(2);
  if (warmupArg === undefined) {
    console.error('usage: node ort_bench.js MODEL.onnx DIR THREADS RUNS WARMUP [PROFILE_PREFIX]');
    process.exit(2);
  }
  const threads = Number(threadsArg), runs = Number(runsArg), warmup = Number(warmupArg);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableProfiling: profilePrefix !== undefined,
    profileFilePrefix: profilePrefix,
  });
  const feeds = {};
  for (const name of session.inputNames) {
    feeds[name] = readNpy(path.join(dir, `input_${name}.npy`));
  }
  const ms = [];
  let results;
  for (let r = 0; r < warmup + runs; ++r) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (r >= warmup) ms.push(elapsed);
  }
  session.outputNames.forEach((name, i) => {
    writeNpy(path.join(dir, `ort_output_${i}.npy`), results[name]);
  });
  if (profilePrefix !== undefined) session.endProfiling();
  ms.sort((a, b) => a - b);
  const n = ms.length;
  const median = n % 2 === 1 ? ms[(n - 1) / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  const mean = ms.reduce((a, b) => a + b, 0) / n;
  const version = require(path.join(__dirname, '.ort', 'node_modules', 'onnxruntime-node',
                                    'package.json')).version;
  console.log(JSON.stringify(
      {threads, runs: n, median_ms: median, min_ms: ms[0], mean_ms: mean, version}));
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message}`);
  process.exit(1);
});

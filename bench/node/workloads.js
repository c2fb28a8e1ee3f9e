// The bench rows in Node.js 20.
//
//     node --expose-gc bench/node/workloads.js WORKLOAD
//
// Each run prints one line, `RESULT workload=... runtime=node cpu=... wall=...`, in the
// unit of the row (see bench/src/workloads.rs, whose sizes these are). CPU is the
// process's (process.cpuUsage, user + system, every thread counted); wall is
// process.hrtime.bigint().
//
// How each row translates:
// - a task is a call of an async function (it starts at once, up to its first await);
//   joining it is awaiting its promise;
// - a yield is `await setImmediate()` (timers/promises): the continuation waits for the
//   loop's check phase, so the loop really turns (a bare `await` would only queue a
//   microtask);
// - a wake-chain hop resolves a fresh promise: it resumes the next function from the
//   microtask queue, without a turn of the loop;
// - timers are setTimeout, whose delays libuv keeps in whole milliseconds;
// - the memory rows read V8's used heap (after a full collection) before and after the
//   tasks, divided by the tasks.

'use strict';

const net = require('node:net');
const { setImmediate: immediate, setTimeout: sleep } = require('node:timers/promises');

const SPAWN_TASKS = 100_000;
const YIELDS = 1_000_000;
const CHAIN_TASKS = 20;
const CHAIN_ROUNDS = 10_000;
const TIMERS = 100_000;
const TIMER_SPAN_US = 100_000;
const ECHO_CONNS = 50;
const ECHO_TRIPS = 2000;
const ECHO_BYTES = 64;
const IDLE_MS = 1000;
const MEM_TASKS = 10_000;

const timerDelayUs = (i) => (i * 7919) % TIMER_SPAN_US;

function meter() {
  const cpu = process.cpuUsage();
  const wall = process.hrtime.bigint();
  // (cpu, wall) per operation, in units of `scale` ns.
  return (ops, scale) => {
    const used = process.cpuUsage(cpu);
    const cpuNs = (used.user + used.system) * 1000;
    const wallNs = Number(process.hrtime.bigint() - wall);
    const per = ops * scale;
    return [cpuNs / per, wallNs / per];
  };
}

async function spawnJoin() {
  const stop = meter();
  const task = async (i) => i;
  const tasks = [];
  for (let i = 0; i < SPAWN_TASKS; i++) tasks.push(task(i));
  for (const t of tasks) await t;
  return stop(SPAWN_TASKS, 1);
}

async function pingPong() {
  const each = YIELDS / 2;
  const yielder = async () => {
    for (let i = 0; i < each; i++) await immediate();
  };
  const stop = meter();
  const a = yielder();
  const b = yielder();
  await a;
  await b;
  return stop(YIELDS, 1);
}

async function wakeChain() {
  const slots = new Array(CHAIN_TASKS).fill(null);
  const link = async (i) => {
    for (let r = 0; r < CHAIN_ROUNDS; r++) {
      let resolve;
      const token = new Promise((r) => { resolve = r; });
      slots[i] = resolve;
      await token;
      const next = slots[(i + 1) % CHAIN_TASKS];
      slots[(i + 1) % CHAIN_TASKS] = null;
      if (next !== null) next();
    }
  };
  const stop = meter();
  const tasks = [];
  for (let i = 0; i < CHAIN_TASKS; i++) tasks.push(link(i));
  while (slots.some((s) => s === null)) await immediate();
  const first = slots[0];
  slots[0] = null;
  first();
  for (const t of tasks) await t;
  return stop(CHAIN_TASKS * CHAIN_ROUNDS, 1);
}

async function timers() {
  const stop = meter();
  const tasks = [];
  for (let i = 0; i < TIMERS; i++) tasks.push(sleep(timerDelayUs(i) / 1000));
  for (const t of tasks) await t;
  return stop(1, 1e6);
}

async function tcpEcho() {
  const server = net.createServer({ noDelay: true }, (socket) => {
    socket.setNoDelay(true);
    socket.on('data', (data) => socket.write(data));
    socket.on('end', () => socket.end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const client = () => new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    const out = Buffer.alloc(ECHO_BYTES, 7);
    let trips = 0;
    let got = 0;
    socket.on('connect', () => socket.write(out));
    socket.on('data', (data) => {
      got += data.length;
      while (got >= ECHO_BYTES) {
        got -= ECHO_BYTES;
        trips += 1;
        if (trips === ECHO_TRIPS) {
          socket.end();
          return;
        }
        socket.write(out);
      }
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  const stop = meter();
  const clients = [];
  for (let i = 0; i < ECHO_CONNS; i++) clients.push(client());
  await Promise.all(clients);
  const sample = stop(ECHO_CONNS * ECHO_TRIPS, 1e3);
  await new Promise((resolve) => server.close(resolve));
  return sample;
}

async function idle() {
  const stop = meter();
  await sleep(IDLE_MS);
  return stop(1, 1e6);
}

async function memory(make) {
  if (typeof global.gc !== 'function') {
    throw new Error('the memory rows need node --expose-gc');
  }
  let polled = 0;
  const task = async () => {
    polled += 1;
    await make();
  };
  global.gc();
  const before = process.memoryUsage().heapUsed;
  const tasks = [];
  for (let i = 0; i < MEM_TASKS; i++) tasks.push(task());
  while (polled < MEM_TASKS) await immediate();
  global.gc();
  const after = process.memoryUsage().heapUsed;
  const per = (after - before) / MEM_TASKS;
  // Keep the tasks reachable until after the measurement.
  if (tasks.length !== MEM_TASKS) throw new Error('lost tasks');
  return [per, per];
}

const memPending = () => memory(() => new Promise(() => {}));

async function memSleeping() {
  const timers = [];
  const sample = await memory(() => new Promise((resolve) => {
    timers.push(setTimeout(resolve, 3600 * 1000));
  }));
  for (const t of timers) clearTimeout(t);
  return sample;
}

const WORKLOADS = {
  spawn_join: spawnJoin,
  yield: pingPong,
  wake_chain: wakeChain,
  timers,
  tcp_echo: tcpEcho,
  idle,
  mem_pending: memPending,
  mem_sleeping: memSleeping,
};

async function main() {
  const name = process.argv[2];
  if (!(name in WORKLOADS)) {
    console.error(`usage: node --expose-gc workloads.js WORKLOAD; workloads: ${Object.keys(WORKLOADS).join(' ')}`);
    process.exit(2);
  }
  const [cpu, wall] = await WORKLOADS[name]();
  console.log(`RESULT workload=${name} runtime=node cpu=${cpu.toFixed(3)} wall=${wall.toFixed(3)}`);
  // Pending promises and cleared timers must not keep the process up.
  process.exit(0);
}

main();

// Loaded with `node --require ./setup.js main.js`: it runs before main.js, in the same
// main script, so its queues are drained only after main.js returns.
process.nextTick(() => console.log('setup tick'));
Promise.resolve().then(() => console.log('setup promise'));
setImmediate(() => console.log('setup immediate'));
console.log('setup');

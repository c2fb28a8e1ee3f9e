// A CommonJS main script: after it returns, the nextTick queue drains before the
// microtask queue, whatever order they were queued in.
Promise.resolve().then(() => console.log('promise'));
process.nextTick(() => console.log('tick'));
queueMicrotask(() => console.log('microtask'));
console.log('main');

// A nextTick and a promise queued inside an immediate run before the next immediate.
setImmediate(() => {
  console.log('immediate 1');
  Promise.resolve().then(() => console.log('promise'));
  process.nextTick(() => console.log('tick'));
});
setImmediate(() => console.log('immediate 2'));

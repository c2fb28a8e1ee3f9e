// Two timers due in the same timers phase: each one's ticks and microtasks run
// before the next timer's callback (Node 11 and later).
setTimeout(() => {
  console.log('timeout 1');
  Promise.resolve().then(() => console.log('promise 1'));
  process.nextTick(() => console.log('tick 1'));
}, 0);
setTimeout(() => {
  console.log('timeout 2');
  Promise.resolve().then(() => console.log('promise 2'));
}, 0);

// Ticks queued by ticks run before any microtask; a tick queued by a microtask waits
// until the microtask queue is empty.
Promise.resolve().then(() => {
  console.log('promise 1');
  process.nextTick(() => console.log('tick from promise'));
  Promise.resolve().then(() => console.log('promise 2'));
});
process.nextTick(() => {
  console.log('tick 1');
  process.nextTick(() => console.log('tick 2'));
  Promise.resolve().then(() => console.log('promise from tick'));
});

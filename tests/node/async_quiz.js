// The second quiz of chapter 8: awaits, a then chain, a tick, a microtask, a timer.
async function job(name) {
  console.log(name + ' start');
  await null;
  console.log(name + ' resumed');
}
console.log('script start');
setTimeout(() => console.log('timeout'), 0);
job('one');
Promise.resolve()
  .then(() => console.log('then 1'))
  .then(() => console.log('then 2'));
process.nextTick(() => console.log('tick'));
job('two');
queueMicrotask(() => console.log('microtask'));
console.log('script end');

// Async functions awaiting timers, interleaved with a plain timer. (The first
// console.log comes before any timer is set: it is slow the first time.)
async function worker(name, ms) {
  console.log(name + ' start');
  await new Promise((resolve) => setTimeout(resolve, ms));
  console.log(name + ' woke');
  await null;
  console.log(name + ' done');
}
console.log('main start');
setTimeout(() => console.log('plain timer'), 50);
worker('a', 100);
worker('b', 1);
console.log('main end');

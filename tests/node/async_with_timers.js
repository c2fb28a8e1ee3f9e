// Async functions awaiting timers, interleaved with a plain timer. (The first
// console.log comes before any timer is set: it is slow the first time. The
// deadlines are hundreds of ms apart, so a loaded machine that stalls the script
// between two setTimeout calls cannot swap them.)
async function worker(name, ms) {
  console.log(name + ' start');
  await new Promise((resolve) => setTimeout(resolve, ms));
  console.log(name + ' woke');
  await null;
  console.log(name + ' done');
}
console.log('main start');
setTimeout(() => console.log('plain timer'), 300);
worker('a', 600);
worker('b', 1);
console.log('main end');

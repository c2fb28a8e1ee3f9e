// A nextTick that queues the next one, ten thousand times, beside one immediate: the
// queue is drained completely before the loop moves on, so the immediate runs only
// after the last tick.
function again(left) {
  if (left === 0) {
    console.log('ticks done');
  } else {
    process.nextTick(() => again(left - 1));
  }
}
setImmediate(() => console.log('immediate'));
again(10000);

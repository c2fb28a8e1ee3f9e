// An interval cleared by a nextTick its own run queued: Node re-arms the interval
// right after the callback, before the tick runs, and the tick's clearInterval takes
// it off again, so it never runs a second time. A later timer shows the run went on.
const id = setInterval(() => {
  console.log('interval');
  process.nextTick(() => {
    console.log('tick clears it');
    clearInterval(id);
  });
}, 10);
setTimeout(() => console.log('50 ms'), 50);

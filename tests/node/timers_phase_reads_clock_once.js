// The timers phase compares deadlines with the time read when it began. The 10 ms
// timer keeps the thread busy for 100 ms, so the 60 ms timer is overdue when it returns,
// but it waits for the next timers phase: the immediate queued meanwhile runs first.
// A stall of 50 ms before the first phase would put both timers in it.
function busy(ms) {
  const start = Date.now();
  while (Date.now() - start < ms) {}
}
setTimeout(() => {
  console.log('10 ms, busy 100 ms');
  setImmediate(() => console.log('immediate'));
  busy(100);
}, 10);
setTimeout(() => console.log('60 ms'), 60);

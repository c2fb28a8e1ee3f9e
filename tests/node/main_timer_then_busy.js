// A 0 ms timer and an immediate, then 50 ms of busy main script: the timer is due by
// the time the loop starts, so it runs in the timers phase before the first iteration.
setTimeout(() => console.log('timeout'), 0);
setImmediate(() => console.log('immediate'));
const start = Date.now();
while (Date.now() - start < 50) {}

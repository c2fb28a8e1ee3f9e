// 50 ms of busy main script, then a 0 ms timer and an immediate. setTimeout reads the
// clock afresh, so the timer is due 1 ms after the busy time: the race stays a race.
const start = Date.now();
while (Date.now() - start < 50) {}
setTimeout(() => console.log('timeout'), 0);
setImmediate(() => console.log('immediate'));

// In the main script this order is not fixed: the 1 ms timer is due in the first
// timers phase only if 1 ms has passed since the loop last read its clock.
setTimeout(() => console.log('timeout'), 0);
setImmediate(() => console.log('immediate'));

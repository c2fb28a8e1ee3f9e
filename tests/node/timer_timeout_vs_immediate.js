// Inside a timer callback, a new 1 ms timer cannot be due in the same timers phase;
// the check phase of this iteration comes first.
setTimeout(() => {
  console.log('timeout A');
  setTimeout(() => console.log('timeout B'), 0);
  setImmediate(() => console.log('immediate'));
}, 0);

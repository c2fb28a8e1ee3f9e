// An interval and a timeout of the same duration, due together: the interval runs and
// is re-armed, then the timeout clears it, and it never runs again.
const id = setInterval(() => console.log('interval'), 10);
setTimeout(() => {
  console.log('timeout clears interval');
  clearInterval(id);
}, 10);
setTimeout(() => console.log('50 ms'), 50);

// A 100 ms interval whose callback keeps the thread busy for 60 ms, beside a 380 ms
// timeout. The interval is re-armed from the time read before each run, so its third
// run (due at 300 ms) still comes before the timeout.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log('tick ' + n);
  const start = Date.now();
  while (Date.now() - start < 60) {}
  if (n === 3) clearInterval(id);
}, 100);
setTimeout(() => console.log('timeout'), 380);

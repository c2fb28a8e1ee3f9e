// A 100 ms interval whose callback keeps the thread busy for 80 ms, beside a 480 ms
// timeout. The interval is re-armed from the time read before each run, and the poll
// waits only what is left of its timeout, so the fourth run (due at 400 ms) comes
// before the timeout. Either mistake makes the fourth run come after it.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log('tick ' + n);
  const start = Date.now();
  while (Date.now() - start < 80) {}
  if (n === 4) clearInterval(id);
}, 100);
setTimeout(() => console.log('timeout'), 480);

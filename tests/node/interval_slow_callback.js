// A 100 ms interval whose callback keeps the thread busy for 80 ms, beside a 380 ms
// timeout set by its first run (due at 480 ms). The interval is re-armed from the time
// read before each run, and the poll waits only what is left of its timeout, so the
// fourth run (due at 400 ms) comes before the timeout. Either mistake makes the fourth
// run come after it. Setting the timeout from the first run, not from the main script,
// keeps a late start of the loop on a loaded machine from shifting one and not the other.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log('tick ' + n);
  if (n === 1) setTimeout(() => console.log('timeout'), 380);
  const start = Date.now();
  while (Date.now() - start < 80) {}
  if (n === 4) clearInterval(id);
}, 100);

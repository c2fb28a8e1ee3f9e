// A 10 ms interval whose first run stays busy for 5 ms and then sets a 10 ms timer.
// The timer joins the 10 ms list first; the interval is re-armed after its callback,
// behind it, though its deadline (from the time read before the callback) is 5 ms
// earlier. The timers phase only looks at the front of a list, so the interval's
// second run waits for the timer. A loop that ran timers by deadline would run it first.
function busy(ms) {
  const start = Date.now();
  while (Date.now() - start < ms) {}
}
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log('interval ' + n);
  if (n === 1) {
    busy(5);
    setTimeout(() => console.log('timeout'), 10);
  } else {
    clearInterval(id);
  }
}, 10);

// An interval that refreshes itself from its own callback keeps its pace: Node re-arms
// it after the callback from the time read before it, whatever refresh() did. The
// callback is busy for 50 ms; re-armed from the end of a callback, the second run would
// come after the 240 ms timer. A stall of 40 ms before the second run does the same.
function busy(ms) {
  const start = Date.now();
  while (Date.now() - start < ms) {}
}
let n = 0;
const interval = setInterval(() => {
  n += 1;
  console.log(`run ${n}`);
  busy(50);
  interval.refresh();
  if (n === 3) clearInterval(interval);
}, 100);
setTimeout(() => console.log('240 ms'), 240);

// setInterval(f, 0) repeats every 1 ms: it joins the 1 ms list, before a 1 ms timeout
// set after it, and its next run waits for a later timers phase.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log(`interval ${n}`);
  if (n === 3) clearInterval(id);
}, 0);
setTimeout(() => console.log('timeout 1 ms'), 1);

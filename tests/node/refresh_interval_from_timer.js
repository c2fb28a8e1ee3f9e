// A 60 ms interval refreshed by a 30 ms timer runs at 90 ms, after a 75 ms timer, and
// then every 60 ms from that run.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log(`interval ${n}`);
  if (n === 2) clearInterval(id);
}, 60);
setTimeout(() => { id.refresh(); console.log('30 ms refreshes interval'); }, 30);
setTimeout(() => console.log('75 ms'), 75);
setTimeout(() => console.log('120 ms'), 120);

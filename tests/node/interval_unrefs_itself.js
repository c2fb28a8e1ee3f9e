// An interval that unrefs itself in its second run is the last thing alive: the loop
// ends after that run, before a third.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log(`interval ${n}`);
  if (n === 2) id.unref();
}, 10);

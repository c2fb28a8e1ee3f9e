// An unref'd interval runs while a ref'd timer keeps the loop alive; once that timer has
// run, nothing ref'd is left and the loop ends, the interval still armed. The 40 ms
// interval runs at 40 and 80 ms, the timer at 100 ms. A stall can only take runs away:
// with the first run late past 60 ms, the second is due after the timer and never comes.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log('interval ' + n);
}, 40);
id.unref();
console.log('hasRef ' + id.hasRef());
setTimeout(() => console.log('100 ms'), 100);

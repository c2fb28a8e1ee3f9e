// An interval with a nextTick in each run, cleared from its own third run.
let n = 0;
const id = setInterval(() => {
  n += 1;
  console.log('interval ' + n);
  process.nextTick(() => console.log('tick ' + n));
  if (n === 3) {
    clearInterval(id);
    setTimeout(() => console.log('after clear'), 0);
  }
}, 1);

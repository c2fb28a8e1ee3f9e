// Inside an I/O callback (poll phase), the check phase comes before the next timers
// phase: the immediate always runs first.
const fs = require('fs');
fs.readFile(__filename, () => {
  console.log('io');
  setTimeout(() => console.log('timeout'), 0);
  setImmediate(() => console.log('immediate'));
  process.nextTick(() => console.log('tick'));
});

// A 0 ms timer set by an immediate that then stays busy for 5 ms is due when the
// iteration ends: it runs before the immediate queued beside it.
setImmediate(() => {
  console.log('immediate 1');
  setTimeout(() => console.log('timeout'), 0);
  setImmediate(() => console.log('immediate 2'));
  const end = Date.now() + 5;
  while (Date.now() < end);
});

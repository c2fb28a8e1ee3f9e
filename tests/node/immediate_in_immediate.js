// An immediate queued by an immediate waits for the next iteration's check phase,
// behind the immediates that were already queued.
setImmediate(() => {
  console.log('immediate A');
  setImmediate(() => console.log('immediate C'));
});
setImmediate(() => console.log('immediate B'));

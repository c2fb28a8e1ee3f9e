// A socket destroyed in an I/O callback: its close callback runs in the close phase,
// after this iteration's check phase.
const net = require('net');
const server = net.createServer((conn) => conn.on('error', () => {}));
server.listen(0, '127.0.0.1', () => {
  const socket = net.connect(server.address().port, '127.0.0.1');
  socket.on('connect', () => {
    console.log('connect');
    socket.on('close', () => console.log('close callback'));
    socket.destroy();
    setImmediate(() => console.log('immediate'));
    process.nextTick(() => console.log('tick'));
    server.close();
  });
});

// A close callback that closes another handle and queues an immediate: the close
// phase runs only the handles closed before it began, so the immediate comes first.
const net = require('net');
const server = net.createServer((conn) => conn.on('error', () => {}));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const a = net.connect(port, '127.0.0.1');
  a.on('connect', () => {
    const b = net.connect(port, '127.0.0.1');
    b.on('connect', () => {
      console.log('both connected');
      server.close();
      b.on('close', () => console.log('b closed'));
      a.on('close', () => {
        console.log('a closed, closes b');
        setImmediate(() => console.log('immediate'));
        b.destroy();
      });
      a.destroy();
    });
  });
});

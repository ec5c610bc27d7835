// The peer's server: one boardgame.io Server process (in-memory storage, socket.io pushing each seat
// its own view after every move, and the lobby API that creates matches and hands out seats).
//
//   node server.js [--port 8000]     (or PORT=8000 node server.js); listens on 127.0.0.1 only

process.env.NODE_ENV = process.env.NODE_ENV || 'production'; // boardgame.io logs every action otherwise

const { Server, Origins } = require('boardgame.io/server');
const { Game } = require('./game');

function portFromArgs(argv) {
  const i = argv.indexOf('--port');
  if (i >= 0) return Number(argv[i + 1]);
  const positional = argv.find((a) => /^\d+$/.test(a));
  if (positional) return Number(positional);
  return Number(process.env.PORT || 8000);
}

const port = portFromArgs(process.argv.slice(2));
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`server.js: not a port: ${port}`);
  process.exit(2);
}

const server = Server({ games: [Game], origins: [Origins.LOCALHOST] });
// Server.run listens on every interface; the benchmark's server answers on the loopback alone.
const listen = server.app.listen.bind(server.app);
server.app.listen = (p, callback) => listen(p, '127.0.0.1', callback);

server.run(port, () => console.log(`boardgame.io peer serving on http://127.0.0.1:${port}`));

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));

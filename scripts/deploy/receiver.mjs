// The deploy test's webhook receiver (a container of its own): HTTPS on 8443 with the certificate
// in /receiver, answering 200 to every delivery; GET /deliveries on plain HTTP 8444 lists what
// arrived as {id, type, memory_id} (one entry per request, so retries show as repeats).
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const received = [];
const tls = { key: fs.readFileSync('/receiver/key.pem'), cert: fs.readFileSync('/receiver/cert.pem') };
https
  .createServer(tls, (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.push({ id: req.headers['x-service-delivery'], type: body.type, memory_id: body.data?.memory_id });
      } catch {
        received.push({ id: req.headers['x-service-delivery'], type: 'unparsable' });
      }
      res.writeHead(200).end('ok');
    });
  })
  .listen(8443, '0.0.0.0');
http
  .createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received)))
  .listen(8444, '0.0.0.0');
process.on('SIGTERM', () => process.exit(0));

import crypto from 'node:crypto';
import { STATUS_CODES, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, ErrorType } from '@ams/core';

/**
 * Requests Node's HTTP parser rejects before Express sees them (headers over the size limit,
 * unparseable request lines) get the spec's envelope instead of Node's empty 431/400.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset socket or a response already under way: nothing can be written any more.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const [type, message]: [ErrorType, string] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? ['request_header_too_large', 'Request headers exceed the size limit']
        : ['bad_request', 'Malformed HTTP request'];
    const status = ERROR_STATUS[type];
    const requestId = crypto.randomUUID();
    const body = JSON.stringify({ type, message, code: status, request_id: requestId });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

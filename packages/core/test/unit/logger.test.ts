import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from '../../src/logger';

/** The logger's lines as parsed JSON, written to a stream instead of the console. */
function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('test', { logLevel: level, logFormat: 'json', nodeEnv: 'development' });
  logger.clear().add(new winston.transports.Stream({ stream }));
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes lines at and above its level, children included, and drops the rest', () => {
    const { logger, lines } = capture('warn');
    logger.info('below');
    logger.child({ request_id: 'r1' }).log('info', 'request', { status: 200 });
    logger.warn('at');
    logger.child({ request_id: 'r2' }).error('above');
    expect(lines.map((l) => [l.level, l.message, l.request_id])).toEqual([
      ['warn', 'at', undefined],
      ['error', 'above', 'r2'],
    ]);
  });

  it('follows a level changed at run time', () => {
    const { logger, lines } = capture('error');
    logger.debug('hidden');
    logger.level = 'debug';
    logger.debug('shown');
    expect(lines.map((l) => l.message)).toEqual(['shown']);
  });

  it('still redacts secrets and stamps the time on the lines it keeps', () => {
    const { logger, lines } = capture('info');
    logger.info('with secrets', { authorization: 'Bearer x', key: 'k', kept: 'v' });
    expect(lines[0]).toMatchObject({ authorization: '[redacted]', key: '[redacted]', kept: 'v', service: 'test' });
    expect(typeof lines[0]!.timestamp).toBe('string');
  });
});

import { addressRefusal } from '../../src/address-policy';

const strict = { allowLoopback: false };
const loopbackOk = { allowLoopback: true };

describe('addressRefusal', () => {
  it.each([
    '0.0.0.0', '0.1.2.3', '10.0.0.1', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254',
    '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.168.0.1',
    '198.18.0.1', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '::', '::1', '::ffff:127.0.0.1', '::ffff:8.8.8.8', '64:ff9b::a00:1', '100::1', 'fc00::1', 'fd12:3456::1',
    'fe80::1', 'fec0::1', 'ff02::1', '2001::1', '2001:db8::1', '2002:a00:1::', '3fff::1', 'fe80::1%lo',
  ])('refuses %s', (address) => {
    expect(addressRefusal(address, strict)).toMatch(/not a public address/);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0',
    '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('allows public %s', (address) => {
    expect(addressRefusal(address, strict)).toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(addressRefusal('localhost', strict)).toMatch(/not an IP address/);
  });

  it('with allowLoopback allows 127.0.0.0/8 and ::1 only', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '0:0:0:0:0:0:0:1']) {
      expect(addressRefusal(address, loopbackOk)).toBeNull();
    }
    for (const address of ['10.0.0.1', '169.254.169.254', '0.0.0.0', '::', '::ffff:127.0.0.1', 'fd00::2']) {
      expect(addressRefusal(address, loopbackOk)).not.toBeNull();
    }
  });
});

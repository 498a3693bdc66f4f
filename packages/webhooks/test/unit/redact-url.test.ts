import { redactUrlSecrets } from '../../src/target-policy';

describe('redactUrlSecrets: the webhook URL as responses, the console and logs show it', () => {
  it.each([
    ['https://hooks.example.com/in?token=abc', 'https://hooks.example.com/in?token=redacted'],
    ['https://hooks.example.com/in?a=1&b=2&a=3', 'https://hooks.example.com/in?a=redacted&b=redacted'],
    ['https://hooks.example.com/in?just-a-flag', 'https://hooks.example.com/in?just-a-flag=redacted'],
    ['https://user:pw@hooks.example.com/in', 'https://redacted@hooks.example.com/in'],
    ['https://user:pw@hooks.example.com/in?key=k%20v', 'https://redacted@hooks.example.com/in?key=redacted'],
  ])('redacts %s', (raw, shown) => {
    expect(redactUrlSecrets(raw)).toBe(shown);
  });

  it.each(['https://hooks.example.com/in', 'https://hooks.example.com:8443/a/b#frag', 'not a url'])('leaves %s as it is', (raw) => {
    expect(redactUrlSecrets(raw)).toBe(raw);
  });
});

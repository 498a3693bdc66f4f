import { parseLine, RECORD_TYPES, type RecordRules } from '../../src';

/** Rules that accept any record but one with `bad`, and find unsafe text only where `nul` is set. */
const rules: RecordRules = {
  unsafeText: (parsed) => ((parsed as { nul?: boolean }).nul ? [{ field: 'content', message: 'content must not contain NUL characters' }] : []),
  check: (_type, parsed) =>
    'bad' in parsed
      ? { problems: [{ field: 'name', message: 'is required' }, { field: 'tags.0', message: 'must be a string' }] }
      : { value: { ...(parsed as Record<string, unknown>), checked: true } },
};

const parse = (text: string, line = 7) => parseLine({ line, text }, rules);
const errorOf = (text: string) => {
  const parsed = parse(text);
  if (!('error' in parsed)) throw new Error('expected a line error');
  return { message: parsed.error.message, type: parsed.error.recordType, field: parsed.error.field };
};

/** One line of an import file judged before anything is written: the line's error names what is wrong. */
describe('parseLine', () => {
  it('hands a known record on as its rules read it', () => {
    expect(parse('{"type":"agent","id":"a"}')).toEqual({ line: 7, type: 'agent', record: { type: 'agent', id: 'a', checked: true } });
  });

  it('knows the header apart from data records', () => {
    expect(parse('{"type":"header","format":"ams-export","version":1}')).toEqual({ line: 7, header: true });
  });

  it('refuses what is not a JSON object', () => {
    expect(errorOf('{"type":')).toMatchObject({ message: expect.stringMatching(/^not valid JSON: /) });
    expect(errorOf('[1,2]')).toEqual({ message: 'a record must be a JSON object', type: undefined, field: undefined });
  });

  it('names the type field when it is missing or unknown, listing the types in file order', () => {
    expect(errorOf('{"id":"x"}')).toEqual({ message: 'type: required, a string naming the record type', type: undefined, field: 'type' });
    expect(errorOf('{"type":"widget"}')).toEqual({ message: `type: unknown record type "widget"; one of ${RECORD_TYPES.join(', ')}`, type: undefined, field: 'type' });
    expect(RECORD_TYPES[0]).toBe('header');
  });

  it('reports unsafe text before the schema, on the field that holds it', () => {
    expect(errorOf('{"type":"memory","nul":true,"bad":1}')).toEqual({ message: 'content must not contain NUL characters', type: 'memory', field: 'content' });
  });

  it("joins every problem the rules find, the first one's field as the line's field", () => {
    expect(errorOf('{"type":"project","bad":1}')).toEqual({ message: 'name: is required; tags.0: must be a string', type: 'project', field: 'name' });
  });

  it('says a line over the limit is too long without reading it', () => {
    const parsed = parseLine({ line: 3, text: '', tooLong: true }, rules);
    expect('error' in parsed && parsed.error.message).toBe('line is longer than the limit of 2 MiB');
  });
});

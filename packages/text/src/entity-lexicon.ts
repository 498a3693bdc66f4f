import type { EntityType } from './entity-types';

/**
 * Curated names compromise does not know (or tags as a generic noun): software, products and
 * companies that agents talk about most. Matching is case-insensitive and the canonical spelling
 * is what extraction returns, so "postgres", "Postgres" and "PostgreSQL" all become "PostgreSQL".
 */
export interface LexiconEntry {
  name: string;
  type: EntityType;
  aliases?: readonly string[];
  /** Only the exact spelling counts: ordinary words such as "go", "rust", "swift", "express". */
  caseSensitive?: boolean;
  /** Ignored at the start of a sentence, where it is usually the verb ("Go to ...", "React to ..."). */
  notSentenceStart?: boolean;
}

const tech = (name: string, aliases: string[] = [], more: Partial<LexiconEntry> = {}): LexiconEntry => ({
  name,
  type: 'technology',
  aliases,
  ...more,
});
/** Spelled exactly and not the first word of a sentence: words that are also plain English. */
const ambiguousTech = (name: string, aliases: string[] = []): LexiconEntry =>
  tech(name, aliases, { caseSensitive: true, notSentenceStart: true });

export const LEXICON: readonly LexiconEntry[] = [
  // Databases, stores and queues
  tech('PostgreSQL', ['Postgres', 'PostgresQL', 'pgsql']),
  tech('MySQL'),
  tech('MariaDB'),
  tech('SQLite'),
  tech('MongoDB', ['Mongo']),
  tech('Redis'),
  tech('Memcached'),
  tech('Elasticsearch', ['ElasticSearch']),
  tech('OpenSearch'),
  tech('Cassandra'),
  tech('DynamoDB'),
  tech('Snowflake'),
  tech('BigQuery'),
  tech('ClickHouse'),
  tech('Kafka', ['Apache Kafka']),
  tech('RabbitMQ'),
  tech('pgvector'),
  tech('Pinecone'),
  tech('SQL'),
  // Languages and runtimes
  tech('TypeScript'),
  tech('JavaScript'),
  tech('Python'),
  tech('Java'),
  tech('Go', ['Golang'], { caseSensitive: true, notSentenceStart: true }),
  ambiguousTech('Rust'),
  tech('Ruby'),
  tech('PHP'),
  tech('C#', ['CSharp']),
  tech('C++', ['cpp']),
  tech('Kotlin'),
  ambiguousTech('Swift'),
  tech('Scala'),
  tech('Elixir'),
  tech('Node.js', ['NodeJS', 'Node']),
  tech('Deno'),
  tech('WebAssembly', ['Wasm']),
  tech('HTML'),
  tech('CSS'),
  tech('Bash'),
  // Frameworks and libraries
  tech('React', ['React.js', 'ReactJS'], { caseSensitive: true, notSentenceStart: true }),
  tech('Vue.js', ['Vue', 'VueJS']),
  tech('Angular'),
  tech('Svelte'),
  tech('Next.js', ['NextJS']),
  ambiguousTech('Express', ['Express.js']),
  tech('Django'),
  ambiguousTech('Flask'),
  tech('FastAPI'),
  tech('Ruby on Rails', ['Rails']),
  tech('Spring Boot'),
  tech('GraphQL'),
  tech('gRPC'),
  tech('Prisma'),
  tech('Knex', ['Knex.js']),
  ambiguousTech('Jest'),
  tech('Webpack'),
  tech('Vite'),
  tech('Tailwind CSS', ['Tailwind', 'TailwindCSS']),
  tech('PyTorch'),
  tech('TensorFlow'),
  tech('LangChain'),
  // Infrastructure, cloud and tooling
  tech('Kubernetes', ['k8s']),
  tech('Docker'),
  tech('Terraform'),
  tech('Ansible'),
  ambiguousTech('Helm'),
  tech('Nginx'),
  tech('Linux'),
  tech('Ubuntu'),
  tech('AWS', ['Amazon Web Services']),
  tech('GCP', ['Google Cloud', 'Google Cloud Platform']),
  tech('Azure', ['Microsoft Azure']),
  tech('Amazon S3', ['S3']),
  tech('AWS Lambda'),
  tech('Cloudflare'),
  tech('Vercel'),
  tech('Heroku'),
  tech('GitHub'),
  tech('GitHub Actions'),
  tech('GitLab'),
  tech('Jenkins'),
  tech('CircleCI'),
  tech('Git'),
  tech('npm'),
  tech('pnpm'),
  tech('Yarn', [], { caseSensitive: true }),
  tech('Vim', ['Neovim']),
  tech('VS Code', ['VSCode', 'Visual Studio Code']),
  tech('Prometheus'),
  tech('Grafana'),
  tech('Datadog'),
  tech('Sentry'),
  tech('OpenTelemetry'),
  tech('Bee-Queue'),
  // Protocols and formats
  tech('JSON'),
  tech('YAML'),
  tech('OAuth', ['OAuth2', 'OAuth 2.0']),
  tech('JWT'),
  tech('OpenAPI'),
  tech('WebSocket', ['WebSockets']),
  tech('HTTP/2'),
  // Products
  { name: 'Slack', type: 'product', caseSensitive: true },
  { name: 'Jira', type: 'product' },
  { name: 'Confluence', type: 'product' },
  { name: 'Notion', type: 'product', caseSensitive: true },
  { name: 'Figma', type: 'product' },
  { name: 'ChatGPT', type: 'product' },
  { name: 'iPhone', type: 'product' },
  { name: 'Excel', type: 'product', caseSensitive: true },
  // Companies compromise's own lexicon misses
  { name: 'OpenAI', type: 'organization' },
  { name: 'Anthropic', type: 'organization' },
  { name: 'Stripe', type: 'organization', caseSensitive: true },
  { name: 'Microsoft', type: 'organization' },
  { name: 'Google', type: 'organization' },
  { name: 'Amazon', type: 'organization', caseSensitive: true },
  { name: 'Netflix', type: 'organization' },
  { name: 'Shopify', type: 'organization' },
  { name: 'Atlassian', type: 'organization' },
  { name: 'Nvidia', type: 'organization', aliases: ['NVIDIA'] },
  { name: 'Salesforce', type: 'organization' },
];

/** Confidence of a lexicon hit: curated, so high; products/companies a shade lower (ambiguity). */
export const LEXICON_CONFIDENCE: Readonly<Partial<Record<EntityType, number>>> = {
  technology: 0.9,
  product: 0.85,
  organization: 0.85,
};

/**
 * Two-letter acronyms and role words compromise tends to tag as organizations ("API", "CEO") but
 * that name no entity.
 */
export const NOT_AN_ENTITY: ReadonlySet<string> = new Set(
  (
    'api apis sdk cli ui ux url uri id ids ceo cto cfo coo vp pm qa pr prs eta faq hr it ok todo fyi ' +
    'asap eod eta tl;dr rfc db sla slo kpi okr q1 q2 q3 q4 am pm utc gmt ai ml llm llms ci cd'
  ).split(' '),
);

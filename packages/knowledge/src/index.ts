// What agents record beside their memories: sessions, projects and how they relate, decisions,
// patterns, and the prompt-ready context built from memories.
export * from './deps';
export * from './similarity-score';
export * from './sessions.service';
export * from './projects.service';
export * from './project-relationships.service';
export * from './decisions.service';
export * from './patterns.service';
export * from './pattern-suggestions.service';
export * from './context.service';
